//! Add new alert: the four selectors, the index, the audience of the advice and whether a change
//! is told again; the rule list (disable, edit, delete) and a preview of the message a sample
//! change would produce.

use alerts_core::change::Direction;
use alerts_core::evaluate::Thresholds;
use alerts_core::ids::RuleId;
use alerts_core::message::{MessageConfig, preview};
use alerts_core::rule::{
    AlertRule, AqIndex, Audience, DataType, Forecast, MessageSpec, Persistence, Repeat, RuleSpec,
    Sensitivity, persistence_ranges,
};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use i18n_core::Language;
use identity_core::ids::KeyId;
use identity_core::ports::ApiKeyInfo;
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

use super::SignedIn;
use super::extract::{ChosenKey, KeyAction};
use super::forecast::{self, PointQuery};
use super::map;
use super::pages::capitalise;
use super::pages::{self, form_error, layout};
use super::pages::{manage_error, unknown_key};
use crate::DashboardState;

/// To edit a rule, `?edit=` (besides the key's `?key=`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RulesQuery {
    #[serde(default)]
    edit: Option<String>,
}

/// The rule form, as typed: kept as text so that a refused form comes back as it was sent.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct RuleForm {
    #[serde(default)]
    rule: String,
    #[serde(default, rename = "type")]
    data_type: String,
    #[serde(default)]
    forecast: String,
    #[serde(default)]
    sensitivity: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    deterioration: String,
    #[serde(default)]
    improvement: String,
    #[serde(default)]
    aq_index: String,
    #[serde(default)]
    audience: String,
    #[serde(default)]
    repeat: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    min_duration: String,
    #[serde(default)]
    hysteresis: String,
    #[serde(default)]
    enabled: String,
    #[serde(default)]
    action: String,
}

impl RuleForm {
    fn from_rule(rule: &AlertRule) -> Self {
        let (message, deterioration, improvement) = match rule.spec.message() {
            MessageSpec::Default => ("default", String::new(), String::new()),
            MessageSpec::Custom {
                deterioration,
                improvement,
            } => ("custom", deterioration.clone(), improvement.clone()),
        };
        Self {
            rule: rule.id.0.to_string(),
            data_type: rule.spec.data_type().as_str().to_owned(),
            forecast: rule.spec.forecast().to_string(),
            sensitivity: rule.spec.sensitivity().as_str().to_owned(),
            message: message.to_owned(),
            deterioration,
            improvement,
            aq_index: rule.spec.aq_index().as_str().to_owned(),
            audience: rule.spec.audience().as_str().to_owned(),
            repeat: rule.spec.repeat().as_str().to_owned(),
            language: rule.spec.language().tag().to_owned(),
            min_duration: rule
                .spec
                .persistence()
                .min_duration
                .map(|v| v.to_string())
                .unwrap_or_default(),
            hysteresis: rule
                .spec
                .persistence()
                .hysteresis
                .map(|v| v.to_string())
                .unwrap_or_default(),
            enabled: if rule.enabled { "on" } else { "" }.to_owned(),
            ..Self::default()
        }
    }

    /// The validated spec, or what to correct.
    fn spec(&self) -> Result<RuleSpec, String> {
        let data_type: DataType = self
            .data_type
            .parse()
            .map_err(|_| "Choose a Type: Air Quality or Pollen.".to_owned())?;
        let forecast: Forecast = self
            .forecast
            .parse()
            .map_err(|_| "Choose a Forecast from the list for the chosen Type.".to_owned())?;
        let sensitivity: Sensitivity = self
            .sensitivity
            .parse()
            .map_err(|_| "Choose a Sensitivity: high, medium or low.".to_owned())?;
        let message = if self.message == "custom" {
            MessageSpec::Custom {
                deterioration: self.deterioration.trim().to_owned(),
                improvement: self.improvement.trim().to_owned(),
            }
        } else {
            MessageSpec::Default
        };
        // A form from before the selector existed sends none: the default index.
        let aq_index: AqIndex = match self.aq_index.trim() {
            "" => AqIndex::default(),
            text => text.parse().map_err(|_| {
                "Choose an Index: the cleanliness index or the US EPA AQI.".to_owned()
            })?,
        };
        let audience: Audience = match self.audience.trim() {
            "" => Audience::default(),
            text => text.parse().map_err(|_| {
                "Choose an Advice for: the general population or one of the groups listed."
                    .to_owned()
            })?,
        };
        let repeat: Repeat = match self.repeat.trim() {
            "" => Repeat::default(),
            text => text
                .parse()
                .map_err(|_| "Choose a Repeat: every request or once per change.".to_owned())?,
        };
        let language: Language = match self.language.trim() {
            "" => Language::default(),
            text => Language::from_tag(text).ok_or_else(|| {
                "Choose a Language from the list: the languages alerts are written in.".to_owned()
            })?,
        };
        // Empty means the data type's default, which is then not stored.
        let number = |text: &str, field: &str| match text.trim() {
            "" => Ok(None),
            text => text.parse::<u8>().map(Some).map_err(|_| {
                format!("{field}: `{text}` is not a whole number. Correct it and try again.")
            }),
        };
        let persistence = Persistence {
            min_duration: number(&self.min_duration, "Lasting at least")?,
            hysteresis: number(&self.hysteresis, "Margin")?,
        };
        RuleSpec::new(data_type, forecast, sensitivity, message)
            .and_then(|spec| {
                spec.with_aq_index(aq_index)
                    .with_audience(audience)
                    .with_repeat(repeat)
                    .with_language(language)
                    .with_persistence(persistence)
            })
            .map_err(|e| format!("{}. Correct it and try again.", capitalise(&e.to_string())))
    }
}

pub(crate) async fn page(
    State(state): State<DashboardState>,
    user: SignedIn,
    ChosenKey(chosen): ChosenKey,
    Query(query): Query<RulesQuery>,
    Query(point): Query<PointQuery>,
) -> Response {
    let edit = query
        .edit
        .as_deref()
        .and_then(|r| Uuid::parse_str(r).ok())
        .map(RuleId);
    let page = Page {
        edit,
        point: Some(&point),
    };
    render(&state, &user, chosen, page, None, StatusCode::OK, None).await
}

/// What a GET of the page asks for besides the key: a rule to edit, a place's forecast.
#[derive(Default)]
struct Page<'a> {
    edit: Option<RuleId>,
    point: Option<&'a PointQuery>,
}

pub(crate) async fn save(
    State(state): State<DashboardState>,
    // The key is checked before anything is validated, so that someone else's key answers
    // the same whatever the form holds.
    KeyAction { user, key, form }: KeyAction<RuleForm>,
) -> Response {
    let dashboard = state.dashboard();
    let key = key.id;
    let spec = match form.spec() {
        Ok(spec) => spec,
        Err(message) => {
            return render(
                &state,
                &user,
                Some(key),
                Page::default(),
                Some(&form),
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(&message),
            )
            .await;
        }
    };
    if form.action == "preview" {
        return render(
            &state,
            &user,
            Some(key),
            Page::default(),
            Some(&form),
            StatusCode::OK,
            None,
        )
        .await;
    }
    let manager = &dashboard.ports.manager;
    let result = match Uuid::parse_str(form.rule.trim()).ok().map(RuleId) {
        Some(rule) => manager
            .update_rule(user.account, key, rule, spec, !form.enabled.is_empty())
            .await
            .map(|_| ()),
        None if form.rule.trim().is_empty() => {
            manager.add_rule(user.account, key, spec).await.map(|_| ())
        }
        None => return unknown_rule(),
    };
    match result {
        Ok(()) => Redirect::to(&rules_path(key)).into_response(),
        Err(e) => manage_error(&e),
    }
}

/// The toggle and delete forms.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RuleAction {
    #[serde(default)]
    rule: String,
}

pub(crate) async fn toggle(
    State(state): State<DashboardState>,
    KeyAction { user, key, form }: KeyAction<RuleAction>,
) -> Response {
    let dashboard = state.dashboard();
    let key = key.id;
    let Some(rule) = parse_rule(&form.rule) else {
        return unknown_rule();
    };
    let manager = &dashboard.ports.manager;
    let rules = match manager.list_rules(user.account, key).await {
        Ok(rules) => rules,
        Err(e) => return manage_error(&e),
    };
    let Some(existing) = rules.into_iter().find(|r| r.id == rule) else {
        return unknown_rule();
    };
    match manager
        .update_rule(user.account, key, rule, existing.spec, !existing.enabled)
        .await
    {
        Ok(_) => Redirect::to(&rules_path(key)).into_response(),
        Err(e) => manage_error(&e),
    }
}

pub(crate) async fn delete(
    State(state): State<DashboardState>,
    KeyAction { user, key, form }: KeyAction<RuleAction>,
) -> Response {
    let dashboard = state.dashboard();
    let key = key.id;
    let Some(rule) = parse_rule(&form.rule) else {
        return unknown_rule();
    };
    match dashboard
        .ports
        .manager
        .delete_rule(user.account, key, rule)
        .await
    {
        Ok(()) => Redirect::to(&rules_path(key)).into_response(),
        Err(e) => manage_error(&e),
    }
}

fn parse_rule(text: &str) -> Option<RuleId> {
    Uuid::parse_str(text.trim()).ok().map(RuleId)
}

fn rules_path(key: KeyId) -> String {
    format!("/dashboard/rules?key={}", key.0)
}

fn unknown_rule() -> Response {
    pages::error_page(
        StatusCode::NOT_FOUND,
        "No such alert",
        "This alert does not exist or belongs to another account. Pick one from the list of alerts.",
    )
}

fn describe(spec: &RuleSpec, thresholds: &Thresholds) -> String {
    let mut text = format!(
        "{} · {} · {} sensitivity · {} message",
        spec.data_type().label(),
        spec.forecast().label(),
        spec.sensitivity().as_str(),
        match spec.message() {
            MessageSpec::Default => "default",
            MessageSpec::Custom { .. } => "custom",
        }
    );
    if spec.data_type() == DataType::Aq {
        text.push_str(" · ");
        text.push_str(spec.aq_index().label());
    }
    text.push_str(" · advice for ");
    text.push_str(spec.audience().label());
    if spec.language() != Language::English {
        text.push_str(" · in ");
        text.push_str(spec.language().name());
    }
    if spec.repeat() == Repeat::Once {
        text.push_str(" · once per change");
    }
    let ((_, _, unit), (_, _, margin_unit)) = persistence_ranges(spec.data_type());
    let min = thresholds.min_duration(spec);
    text.push_str(&format!(
        " · lasting {min} {} or more · margin {} {margin_unit}",
        if min == 1 {
            unit.trim_end_matches('s')
        } else {
            unit
        },
        thresholds.hysteresis(spec)
    ));
    text
}

/// What a repeat choice does, in the words of the form.
fn repeat_hint(repeat: Repeat) -> &'static str {
    match repeat {
        Repeat::Every => {
            "each request gets every alert its points raise, however often the same points are posted."
        }
        Repeat::Once => {
            "a point id is sent each change once: while the change told is still ahead or \
             under way, it is not sent again, however its first hour moves. It is sent again when \
             the forecast turns, when its worst hour reaches a category beyond the one told (by \
             more than the margin), or once the change told is over."
        }
    }
}

fn rule_list(user: &SignedIn, key: KeyId, rules: &[AlertRule], thresholds: &Thresholds) -> Markup {
    html! {
        section #rules {
            h2 { "Alerts of this key" }
            @if rules.is_empty() {
                p { "No alerts yet. Add one below." }
            } @else {
                table {
                    thead { tr { th { "Alert" } th { "State" } th { "Actions" } } }
                    tbody {
                        @for rule in rules {
                            tr {
                                td data-label="Alert" { (describe(&rule.spec, thresholds)) }
                                td data-label="State" { @if rule.enabled { "enabled" } @else { "disabled" } }
                                td data-label="Actions" {
                                    a href=(format!("/dashboard/rules?key={}&edit={}", key.0, rule.id.0)) { "Edit" }
                                    " "
                                    form method="post" action="/dashboard/rules/toggle"
                                        data-inplace=(if rule.enabled { "Alert disabled: it sends nothing until enabled again." } else { "Alert enabled." }) {
                                        input type="hidden" name="csrf" value=(user.csrf);
                                        input type="hidden" name="key" value=(key.0);
                                        input type="hidden" name="rule" value=(rule.id.0);
                                        button.secondary type="submit" { @if rule.enabled { "Disable" } @else { "Enable" } }
                                    }
                                    " "
                                    form method="post" action="/dashboard/rules/delete" data-inplace="Alert deleted." {
                                        input type="hidden" name="csrf" value=(user.csrf);
                                        input type="hidden" name="key" value=(key.0);
                                        input type="hidden" name="rule" value=(rule.id.0);
                                        button.danger type="submit" { "Delete" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn rule_form(
    user: &SignedIn,
    key: KeyId,
    form: &RuleForm,
    error: Option<&str>,
    thresholds: &Thresholds,
) -> Markup {
    let editing = !form.rule.is_empty();
    let data_type = form.data_type.parse::<DataType>().unwrap_or(DataType::Aq);
    let custom = form.message == "custom";
    let preview_box = form.spec().ok().filter(|_| form.action == "preview");
    html! {
        form.card #rule-form method="post" action="/dashboard/rules" data-inplace=(if editing { "Alert saved." } else { "Alert added: it is listed above." }) {
            h2 { @if editing { "Edit alert" } @else { "Add new alert" } }
            (form_error(error))
            input type="hidden" name="csrf" value=(user.csrf);
            input type="hidden" name="key" value=(key.0);
            input type="hidden" name="rule" value=(form.rule);
            label for="type" { "Type" }
            select #type name="type" {
                @for t in [DataType::Aq, DataType::Pollen] {
                    option value=(t.as_str()) selected[t == data_type] { (t.label()) }
                }
            }
            label for="forecast" { "Forecast" }
            select #forecast name="forecast" {
                @for t in [DataType::Aq, DataType::Pollen] {
                    optgroup label=(t.label()) data-type=(t.as_str()) {
                        @for h in t.horizons() {
                            option value=(h.to_string()) selected[h.to_string() == form.forecast] { (h.label()) }
                        }
                    }
                }
            }
            p.hint { "Air Quality looks hours ahead; Pollen looks at today or days ahead." }
            label for="sensitivity" { "Sensitivity" }
            select #sensitivity name="sensitivity" {
                @for s in Sensitivity::ALL {
                    option value=(s.as_str()) selected[s.as_str() == form.sensitivity || (form.sensitivity.is_empty() && s == Sensitivity::Medium)] {
                        (capitalise(s.as_str()))
                    }
                }
            }
            label for="aq_index" { "Index shown in air-quality messages" }
            select #aq_index name="aq_index" {
                @for i in AqIndex::ALL {
                    option value=(i.as_str()) selected[i.as_str() == form.aq_index] { (i.label()) }
                }
            }
            p.hint {
                "The cleanliness index reads \"(31 AQI)\", higher is cleaner; the US EPA AQI reads \"(US AQI 152)\", higher is worse, "
                "computed from the forecast hour's concentrations (\"not available\" when the source gives none). Pollen messages show neither."
            }
            label for="audience" { "Advice for" }
            select #audience name="audience" {
                @for a in Audience::ALL {
                    option value=(a.as_str()) selected[a.as_str() == form.audience || (form.audience.is_empty() && a == Audience::General)] { (a.label()) }
                }
            }
            p.hint {
                "Chooses the predefined recommendation: the general population's, or advice for children, older adults, "
                "people with heart or lung disease, pregnancy or athletes. The description is the same for all."
            }
            label for="language" { "Language" }
            select #language name="language" aria-describedby="language-hint" {
                @for l in Language::ALL {
                    option value=(l.tag()) lang=(l.tag()) selected[l.tag() == form.language || (form.language.is_empty() && l == Language::English)] { (l.name()) }
                }
            }
            p.hint #language-hint {
                "The language of the default descriptions, the recommendations and the names a custom description's placeholders fill in. "
                "A custom description itself is sent as you write it. Members programs read (codes, values, categories in the alert lines) stay the same in every language."
            }
            label for="repeat" { "Repeat" }
            select #repeat name="repeat" {
                @for r in Repeat::ALL {
                    option value=(r.as_str()) selected[r.as_str() == form.repeat || (form.repeat.is_empty() && r == Repeat::Every)] { (r.label()) }
                }
            }
            p.hint {
                @for r in Repeat::ALL {
                    (r.label()) ": " (repeat_hint(r)) " "
                }
            }
            @let ((dmin, dmax, dunit), (hmin, hmax, hunit)) = persistence_ranges(data_type);
            label for="min_duration" { "Lasting at least (" (dunit) ")" }
            input #min_duration name="min_duration" type="number" min=(dmin) max=(dmax)
                placeholder=(format!("{} (default)", match data_type { DataType::Aq => thresholds.aq_min_hours, DataType::Pollen => thresholds.pollen_min_days }))
                value=(form.min_duration) aria-describedby="persistence-hint";
            label for="hysteresis" { "Margin (" (hunit) ")" }
            input #hysteresis name="hysteresis" type="number" min=(hmin) max=(hmax)
                placeholder=(format!("{} (default)", match data_type { DataType::Aq => thresholds.aq_hysteresis, DataType::Pollen => thresholds.pollen_hysteresis }))
                value=(form.hysteresis) aria-describedby="persistence-hint";
            p.hint #persistence-hint {
                "A change is sent only once the forecast holds it this long (Air Quality: hours, default "
                (thresholds.aq_min_hours) "; Pollen: days, default " (thresholds.pollen_min_days)
                "), so a one-hour wiggle of the forecast is not an alert. It is over only once the forecast comes back "
                "inside the threshold by the margin (default " (thresholds.aq_hysteresis) " index points; pollen "
                (thresholds.pollen_hysteresis) " levels), so a value hovering on a line stays one change. "
                "Leave empty for the defaults."
            }
            label for="message" { "Message" }
            select #message name="message" {
                option value="default" selected[!custom] { "Default" }
                option value="custom" selected[custom] { "Custom" }
            }
            div #custom-fields hidden[!custom] {
                p.hint {
                    "Only the description can be customised; the recommendation stays predefined. Placeholders for "
                    (data_type.label()) ": "
                    @for (i, p) in data_type.placeholders().iter().enumerate() {
                        @if i > 0 { ", " }
                        code { "{" (p) "}" }
                    }
                    " (Air Quality: "
                    @for (i, p) in DataType::Aq.placeholders().iter().enumerate() {
                        @if i > 0 { ", " }
                        code { "{" (p) "}" }
                    }
                    "; Pollen: "
                    @for (i, p) in DataType::Pollen.placeholders().iter().enumerate() {
                        @if i > 0 { ", " }
                        code { "{" (p) "}" }
                    }
                    "). " code { "{peak_category}" } " and " code { "{peak_hours}" } " (" code { "{peak_days}" }
                    ") name the worst hour (day) of the change, " code { "{duration}" } " how long it lasts (\"4 hours\", "
                    "or \"at least 4 hours\" when it lasts past the forecast read)."
                }
                label for="deterioration" { "Description when it gets worse (required)" }
                textarea #deterioration name="deterioration" rows="2" maxlength="500" { (form.deterioration) }
                label for="improvement" { "Description when it gets better (required)" }
                textarea #improvement name="improvement" rows="2" maxlength="500" { (form.improvement) }
            }
            @if editing {
                label { input type="checkbox" name="enabled" checked[!form.enabled.is_empty()]; " Enabled" }
            }
            @if let Some(spec) = preview_box {
                section #preview {
                    h3 { "Preview" }
                    @for (name, direction) in [("Gets worse", Direction::Deterioration), ("Gets better", Direction::Improvement)] {
                        @let message = preview(&spec, direction, &MessageConfig::default());
                        p { strong { (name) ": " } span lang=(spec.language().tag()) { (message.description) } }
                        p.hint { "Recommendation (predefined) for " (spec.audience().label()) ": " span lang=(spec.language().tag()) { (message.recommendation) } }
                    }
                    p.hint { (spec.repeat().label()) ": " (repeat_hint(spec.repeat())) }
                }
            }
            // The preview answers with the form again and its preview, which takes the focus.
            button.secondary type="submit" name="action" value="preview" data-focus="preview" data-inplace="" data-looks { "Preview message" }
            " "
            button type="submit" name="action" value="save" { @if editing { "Save alert" } @else { "Add alert" } }
        }
    }
}

fn key_choice(keys: &[ApiKeyInfo], chosen: KeyId) -> Markup {
    html! {
        form.card method="get" action="/dashboard/rules" {
            label for="key" { "API key for applying alerts" }
            select #key name="key" {
                @for key in keys {
                    option value=(key.id.0) selected[key.id == chosen] { (key.label) " (" (key.prefix) ")" }
                }
            }
            button.secondary type="submit" { "Show alerts" }
            p.hint { "Need another key? " a href="/dashboard/keys" { "Create a key" } }
        }
    }
}

async fn render(
    state: &DashboardState,
    user: &SignedIn,
    chosen: Option<KeyId>,
    page: Page<'_>,
    typed: Option<&RuleForm>,
    status: StatusCode,
    error: Option<&str>,
) -> Response {
    let dashboard = state.dashboard();
    let manager = &dashboard.ports.manager;
    // The defaults a rule that sets no duration or margin has on this server.
    let thresholds = &state.alerts().config().evaluator.thresholds;
    let keys = match super::keys::live_keys(state, user).await {
        Ok(keys) => keys,
        Err(page) => return page,
    };
    let key = match chosen {
        Some(id) if keys.iter().any(|k| k.id == id) => Some(id),
        Some(_) => return unknown_key(),
        None => keys.first().map(|k| k.id),
    };
    let Some(key) = key else {
        let body = html! {
            p { "Alerts are applied to an API key. You have none yet: "
                a href="/dashboard/keys" { "create a key" } " first." }
        };
        return pages::page(status, layout("Alert rules", Some(user), &body));
    };
    let rules = match manager.list_rules(user.account, key).await {
        Ok(rules) => rules,
        Err(e) => return manage_error(&e),
    };
    let form = match (typed, page.edit) {
        (Some(form), _) => form.clone(),
        (None, Some(edit)) => match rules.iter().find(|r| r.id == edit) {
            Some(rule) => RuleForm::from_rule(rule),
            None => return unknown_rule(),
        },
        (None, None) => RuleForm {
            data_type: "aq".into(),
            forecast: "6h".into(),
            sensitivity: "medium".into(),
            message: "default".into(),
            ..RuleForm::default()
        },
    };
    let no_point = PointQuery::default();
    let (forecast, status) = match forecast::section(
        state,
        user.account,
        key,
        &rules,
        page.point.unwrap_or(&no_point),
    )
    .await
    {
        Ok(section) => (section, status),
        Err(limited) => (limited, StatusCode::TOO_MANY_REQUESTS),
    };
    let body = html! {
        (key_choice(&keys, key))
        (rule_list(user, key, &rules, thresholds))
        (rule_form(user, key, &form, error, thresholds))
        (forecast)
        (map::assets(state))
    };
    map::allow_basemap(
        state,
        pages::page(status, layout("Alert rules", Some(user), &body)),
    )
}
