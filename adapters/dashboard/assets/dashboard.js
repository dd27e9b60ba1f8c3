// The dashboard's script: copy buttons, the rule form's choices and the server's own address in
// sample commands. Everything works without it.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = "Copied";
    // Back to its label, so that a second copy says so again.
    setTimeout(() => { button.textContent = label; }, 2000);
  });
});

// Sample commands name the address this page came from, which the server may not know behind a
// proxy.
document.addEventListener("DOMContentLoaded", () => {
  for (const origin of document.querySelectorAll("[data-origin]")) {
    origin.textContent = window.location.origin;
  }
});

// The alert form: show only the forecasts of the chosen type, and the description fields only
// for a custom message. Without the script every option shows and the server checks the pair.
function syncRuleForm() {
  const type = document.getElementById("type");
  const forecast = document.getElementById("forecast");
  const message = document.getElementById("message");
  const custom = document.getElementById("custom-fields");
  if (type && forecast) {
    for (const group of forecast.querySelectorAll("optgroup")) {
      const offered = group.dataset.type === type.value;
      group.hidden = !offered;
      group.disabled = !offered;
    }
    const selected = forecast.selectedOptions[0];
    if (!selected || selected.parentElement.disabled) {
      const first = forecast.querySelector(`optgroup[data-type="${type.value}"] option`);
      if (first) first.selected = true;
    }
  }
  if (message && custom) {
    custom.hidden = message.value !== "custom";
  }
}
document.addEventListener("change", (event) => {
  if (["type", "message"].includes(event.target.id)) syncRuleForm();
});
document.addEventListener("DOMContentLoaded", syncRuleForm);
