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

// Forms marked `data-inplace` answer where the reader is: the form is sent in the background,
// the page's content is replaced by the answer's, and the form's message (its `data-inplace`)
// or the refusal appears at the form, with the page kept in place. Without the script, or when
// the background request fails, the form is sent as usual.
function sameForm(form, candidate) {
  if (candidate.getAttribute("action") !== form.getAttribute("action")) return false;
  for (const input of form.querySelectorAll("input[type=hidden]")) {
    if (input.name === "csrf") continue;
    const other = candidate.querySelector(`input[type=hidden][name="${input.name}"]`);
    if (!other || other.value !== input.value) return false;
  }
  return true;
}

function say(near, text, kind) {
  if (!text || !near) return;
  for (const old of document.querySelectorAll("[data-said]")) old.remove();
  const message = document.createElement("p");
  message.className = kind;
  message.dataset.said = "";
  message.setAttribute("role", kind === "error" ? "alert" : "status");
  message.tabIndex = -1;
  message.textContent = text;
  near.before(message);
  // The control that was used is gone with the old content: the reader is taken to the answer.
  message.focus();
}

document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-inplace")) return;
  if (!window.fetch || !window.DOMParser) return;
  event.preventDefault();
  const button = form.querySelector("button[type=submit]");
  if (button) button.disabled = true;
  let answer;
  try {
    answer = await fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      credentials: "same-origin",
    });
  } catch (_) {
    // Nothing reached the server: send the form as a plain form.
    form.submit();
    return;
  }
  try {
    // Answered with another page (signed out, say): show that page as it is.
    if (answer.redirected && new URL(answer.url).pathname !== window.location.pathname) {
      window.location.assign(answer.url);
      return;
    }
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const main = document.querySelector("main");
    const fresh = page.querySelector("main");
    if (!main || !fresh) throw new Error("no page");
    const again = [...fresh.querySelectorAll("form")].find((f) => sameForm(form, f));
    if (answer.ok || again) {
      const section = form.closest("section[id]");
      main.replaceChildren(...[...fresh.childNodes].map((n) => document.adoptNode(n)));
      if (answer.redirected) history.replaceState(null, "", answer.url);
      const here = [...main.querySelectorAll("form")].find((f) => sameForm(form, f));
      const place = (section && document.getElementById(section.id)) || main.firstElementChild;
      if (answer.ok) {
        say(here || (place && place.firstElementChild) || place, form.dataset.inplace, "notice");
      } else {
        const why = main.querySelector("p.error");
        if (why) { why.tabIndex = -1; why.focus(); }
      }
    } else {
      // An error page of its own: its words, at the form, with the page as it was.
      const why = fresh.querySelector("p.error");
      say(form, why ? why.textContent : "That did not work; reload the page and try again.", "error");
      if (button) button.disabled = false;
    }
  } catch (_) {
    // The server has answered: show its answer as a page rather than send the form again.
    window.location.assign(answer.url);
  }
});
