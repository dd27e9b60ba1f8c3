//! Accessibility checks of a page in a real browser: the rules of the axe-core engine (vendored
//! from npm under `vendor/axe-core`, see its README) for WCAG 2.1 levels A and AA, run in the
//! page, and a keyboard walk that presses Tab through it.
//!
//! This module only holds the scripts: the browser tests run them through their WebDriver
//! session (`execute` / `execute_async`) and assert on what they return.

/// The axe-core engine, as its npm package ships it.
pub const AXE: &str = include_str!("../vendor/axe-core/axe.min.js");

/// An asynchronous WebDriver script (its last argument is the callback) that loads [`AXE`] if
/// the page has not got it yet, runs the WCAG 2.1 A and AA rules on the whole document, and
/// answers the violations, each as `{id, impact, help, nodes: [css selector, ...]}`. A rule the
/// engine could not run is answered as a violation too, so that no check is skipped unseen.
///
/// Colour contrast is checked everywhere but inside the maps: text over a map's imagery has no
/// one background to judge, and Leaflet blends its tiles in a mode (`plus-lighter`) the engine
/// does not know, which would make it skip the contrast of the whole page.
///
/// The page's own Content-Security-Policy does not apply to a script the driver runs, so the
/// engine is evaluated as given.
pub fn axe_script() -> String {
    format!(
        "const done = arguments[arguments.length - 1];\n\
         if (!window.axe) {{ {AXE}\n }}\n\
         const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];\n\
         const found = (r) => r.violations.map((v) => ({{ id: v.id, impact: v.impact, help: v.help,\n\
             nodes: v.nodes.map((n) => n.target.join(' ')) }}))\n\
           .concat(r.incomplete.filter((v) => v.error).map((v) => ({{ id: v.id, impact: 'critical',\n\
             help: 'could not be checked: ' + (v.error.message || v.error), nodes: [] }})));\n\
         (async () => {{\n\
           const all = await window.axe.run(document,\n\
             {{ runOnly: {{ type: 'tag', values: tags }}, rules: {{ 'color-contrast': {{ enabled: false }} }} }});\n\
           const contrast = await window.axe.run({{ exclude: ['.leaflet-container'] }},\n\
             {{ runOnly: {{ type: 'rule', values: ['color-contrast'] }} }});\n\
           return found(all).concat(found(contrast));\n\
         }})().then(done).catch((e) => done([{{ id: 'axe-failed', impact: 'critical', help: String(e), nodes: [] }}]));"
    )
}

/// How both keyboard scripts name an element: `tag#id[name][href]=value`.
const DESCRIBE: &str = r##"
const describe = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
  + (e.getAttribute("name") ? "[" + e.getAttribute("name") + "]" : "")
  + (e.getAttribute("href") ? "[" + e.getAttribute("href") + "]" : "")
  + (e.value && e.tagName === "BUTTON" ? "=" + e.value : "");
"##;

/// A script that answers the controls a keyboard user must be able to reach on the page: every
/// visible link, button and form field in the page's `main`, each described as
/// `tag#id[name][href]=value`, in order; each control is marked with its place in that list
/// (`data-walk`), so that two alike ("Delete" on every row) are told apart. Controls inside a
/// map are left out: the maps are pictures that a click adds to, and every map has a form
/// beside it that does the same by keyboard.
pub fn reachable_script() -> String {
    format!(
        "{DESCRIBE}\n\
         const wanted = \"a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex='-1'])\";\n\
         const main = document.querySelector('main');\n\
         if (!main) return [];\n\
         return [...main.querySelectorAll(wanted)]\n\
           .filter((e) => !e.disabled && !e.closest('.leaflet-container, [hidden]')\n\
             && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')\n\
           .map((e, i) => {{ e.dataset.walk = String(i); return describe(e); }});"
    )
}

/// A script that answers the focused element as `[place, description, drawn]`: its place among
/// [`reachable_script`]'s controls (`null` for one outside them), its description, and whether
/// the browser draws its focus (an outline or a box shadow); `null` when nothing has the focus.
pub fn focused_script() -> String {
    format!(
        "{DESCRIBE}\n\
         const e = document.activeElement;\n\
         if (!e || e === document.body) return null;\n\
         const s = getComputedStyle(e);\n\
         const drawn = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';\n\
         return [e.dataset.walk === undefined ? null : Number(e.dataset.walk), describe(e), drawn];"
    )
}
