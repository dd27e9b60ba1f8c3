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
function fillOrigins() {
  for (const origin of document.querySelectorAll("[data-origin]")) {
    origin.textContent = window.location.origin;
  }
}
document.addEventListener("DOMContentLoaded", fillOrigins);

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

// What the page's script does to a page, done again to content swapped in.
function settle() {
  fillOrigins();
  syncRuleForm();
}

// Forms marked `data-inplace` answer where the reader is: the form is sent in the background,
// the page's content is replaced by the answer's, and the form's message (its `data-inplace`,
// or the pressed button's) or the refusal appears at the form, with the page kept in place.
// Without the script, or when the background request fails, the form is sent as usual.
//
// A part of the page marked `data-keep` (a map with the place the reader picked) stays as it is
// when the answer has it too, but for its parts marked `data-fresh`, which take the answer's;
// `data-keep` names the address's parameters that part owns, kept in the address as well.
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

// Puts the page's kept parts in the answer in place of the answer's own (but for their fresh
// parts), and answers the address parameters they own, with the reader's values.
function keep(main, fresh) {
  const owned = new URLSearchParams();
  const current = new URLSearchParams(window.location.search);
  for (const live of main.querySelectorAll("[data-keep][id]")) {
    const theirs = fresh.querySelector(`#${CSS.escape(live.id)}`);
    if (!theirs) continue;
    for (const part of live.querySelectorAll("[data-fresh][id]")) {
      const newer = theirs.querySelector(`#${CSS.escape(part.id)}`);
      if (!newer) continue;
      // The reader's choices stay chosen where the fresh part still offers them.
      for (const choice of part.querySelectorAll("select[id]")) {
        const same = newer.querySelector(`#${CSS.escape(choice.id)}`);
        if (same && [...same.options].some((o) => o.value === choice.value)) same.value = choice.value;
      }
      part.replaceWith(newer);
    }
    theirs.replaceWith(live);
    for (const name of live.dataset.keep.split(" ")) {
      if (current.has(name)) owned.set(name, current.get(name));
    }
  }
  return owned;
}

function address(url, owned) {
  const next = new URL(url);
  for (const [name, value] of owned) {
    if (!next.searchParams.has(name)) next.searchParams.set(name, value);
  }
  return next.toString();
}

// One form at a time: two answers racing would leave the older page on screen, with buttons
// that act on what it showed.
let inFlight = false;

document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-inplace")) return;
  if (!window.fetch || !window.DOMParser) return;
  event.preventDefault();
  if (inFlight) return;
  inFlight = true;
  try {
    await sendInPlace(form, event.submitter);
  } finally {
    inFlight = false;
  }
});

async function sendInPlace(form, submitter) {
  const pressed = submitter || form.querySelector("button[type=submit]");
  const data = new FormData(form);
  // A form with two buttons (preview, save) says which one was pressed.
  if (pressed && pressed.name) data.set(pressed.name, pressed.value);
  const message = pressed && pressed.dataset.inplace !== undefined
    ? pressed.dataset.inplace
    : form.dataset.inplace;
  const buttons = [...form.querySelectorAll("button[type=submit]")];
  for (const button of buttons) button.disabled = true;
  let answer;
  try {
    // The attribute, not `form.action`: a form whose buttons are named `action` (preview,
    // save) hides the property behind them.
    answer = await fetch(new URL(form.getAttribute("action"), document.baseURI), {
      method: "POST",
      body: new URLSearchParams(data),
      credentials: "same-origin",
    });
  } catch (_) {
    // Nothing reached the server: send the form as a plain form, saying which button was
    // pressed (a plain submit() sends none, and a preview would be taken for a save).
    if (pressed && pressed.name) {
      const choice = document.createElement("input");
      choice.type = "hidden";
      choice.name = pressed.name;
      choice.value = pressed.value;
      form.append(choice);
    }
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
      const section = form.closest("section[id], form[id]");
      // The answer's content, made this page's before the kept parts move into it, so that
      // no live part (a map) ever leaves this page's document.
      const content = document.createDocumentFragment();
      content.append(...[...fresh.childNodes].map((n) => document.adoptNode(n)));
      const owned = keep(main, content);
      main.replaceChildren(content);
      // A session started anew (a password change) has a new CSRF token: the forms outside
      // the content (signing out) take it too.
      const token = page.querySelector("input[name=csrf]");
      if (token) {
        for (const input of document.querySelectorAll("input[name=csrf]")) input.value = token.value;
      }
      settle();
      // Something changed (not a refusal, nor a button that only looks, `data-looks`): a kept
      // place's forecast is drawn again.
      const looked = pressed && pressed.hasAttribute("data-looks");
      if (answer.ok && !looked && owned.size > 0) {
        document.dispatchEvent(new CustomEvent("dashboard:kept"));
      }
      if (answer.redirected) history.replaceState(null, "", address(answer.url, owned));
      const here = [...main.querySelectorAll("form")].find((f) => sameForm(form, f));
      const place = (section && document.getElementById(section.id)) || main.firstElementChild;
      const focus = pressed && pressed.dataset.focus && document.getElementById(pressed.dataset.focus);
      // A form without a message of its own answers with the page's (the account's notice).
      const told = !message && main.querySelector("[role=status]:not([data-said])");
      if (answer.ok && (focus || told)) {
        (focus || told).tabIndex = -1;
        (focus || told).focus();
      } else if (answer.ok) {
        say(here || (place && place.firstElementChild) || place, message, "notice");
      } else {
        const why = main.querySelector("p.error");
        if (why) { why.tabIndex = -1; why.focus(); }
      }
    } else {
      // An error page of its own: its words, at the form, with the page as it was.
      const why = fresh.querySelector("p.error");
      say(form, why ? why.textContent : "That did not work; reload the page and try again.", "error");
      for (const button of buttons) button.disabled = false;
    }
  } catch (_) {
    // The server has answered: show its answer as a page rather than send the form again.
    window.location.assign(answer.url);
  }
}
