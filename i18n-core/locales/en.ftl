## The catalogue's English: the source every other language translates.
## Ids stay as they are; only the text after `=` is translated. Variables (`{ $hours }`) and
## selector keys (`[one]`, `[worse]`, `*[other]`) keep their names; a language adds the plural
## categories it needs (Polish: one, few, many, other).

## The language's own name, in the language: the dashboard's list of languages.
language-name = English

## The cleanliness index's categories (0 to 100, 100 cleanest): names of the air's quality.
ci-excellent = Excellent
ci-good = Good
ci-moderate = Moderate
ci-low = Low
ci-poor = Poor
ci-extremely-poor = Extremely poor

## The European Environment Agency's European Air Quality Index: its six bands' names.
eaqi-good = Good
eaqi-fair = Fair
eaqi-moderate = Moderate
eaqi-poor = Poor
eaqi-very-poor = Very poor
eaqi-extremely-poor = Extremely poor

## The US EPA AQI's categories.
usa-epa-good = Good
usa-epa-moderate = Moderate
usa-epa-unhealthy-for-sensitive-groups = Unhealthy for Sensitive Groups
usa-epa-unhealthy = Unhealthy
usa-epa-very-unhealthy = Very Unhealthy
usa-epa-hazardous = Hazardous

## The names of the indexes, for display.
index-ci = Cleanliness index (0 to 100, higher is cleaner)
index-eaqi = European Air Quality Index (EEA)
index-usa-epa = US AQI (EPA)

## National indexes: their names and their categories as their publishers name them.
index-gbr-defra = Daily Air Quality Index (UK, Defra)
gbr-defra-low = Low
gbr-defra-moderate = Moderate
gbr-defra-high = High
gbr-defra-very-high = Very High
index-ind-cpcb = National Air Quality Index (India, CPCB)
ind-cpcb-good = Good
ind-cpcb-satisfactory = Satisfactory
ind-cpcb-moderate = Moderate
ind-cpcb-poor = Poor
ind-cpcb-very-poor = Very Poor
ind-cpcb-severe = Severe
index-chn-mep = Air Quality Index (China, MEE)
chn-mep-excellent = Excellent
chn-mep-good = Good
chn-mep-lightly-polluted = Lightly Polluted
chn-mep-moderately-polluted = Moderately Polluted
chn-mep-heavily-polluted = Heavily Polluted
chn-mep-severely-polluted = Severely Polluted
index-can-ec = Air Quality Health Index (Canada, ECCC)
can-ec-low-risk = Low risk
can-ec-moderate-risk = Moderate risk
can-ec-high-risk = High risk
can-ec-very-high-risk = Very high risk

## Plants whose pollen the sources count, as names on their own.
plant-alder = Alder
plant-birch = Birch
plant-olive = Olive
plant-grass = Grasses
plant-mugwort = Mugwort
plant-ragweed = Ragweed

## Pollen levels, 0 to 5: how much pollen is in the air.
pollen-level-none = None
pollen-level-very-low = Very low
pollen-level-low = Low
pollen-level-moderate = Moderate
pollen-level-high = High
pollen-level-very-high = Very high

## Pollen types: what `{kind}` fills in a custom description, as a word inside a sentence
## (English templates write "{kind} pollen"); lower case in English.
pollen-type-tree = tree
pollen-type-grass = grass
pollen-type-weed = weed

## The number an air-quality alert shows, and what stands in for it.
## `$number` is already written: a number, or one of the aqi-… texts below.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = not available
aqi-above = above { $value }
aqi-at-least = at least { $value }

## How long an episode lasts: `{duration}` in a customer's own message.
duration-hours = { $n ->
    [one] { $n } hour
   *[other] { $n } hours
}
duration-days = { $n ->
    [one] { $n } day
   *[other] { $n } days
}
duration-at-least = at least { $duration }

## An air-quality alert's default description. `$aqi` is an aqi-shown-… text.
alert-air-worse = In { $hours ->
    [one] { $hours } hour
   *[other] { $hours } hours
} the air quality is expected to be worse ({ $aqi }).
alert-air-better = In { $hours ->
    [one] { $hours } hour
   *[other] { $hours } hours
} the air quality is expected to be better ({ $aqi }).

## A pollen alert's default description. `$day` is 0 (today), 1 (tomorrow) or more days
## ahead; `$kind` is `tree`, `grass` or `weed`; `$size` is 1 (slightly), 2 (moderately) or 3
## and more (drastically) levels.
alert-pollen-rise = { $day ->
    [0] Today
    [1] Tomorrow
   *[other] In { $day } days
} { $kind ->
    [tree] tree
    [grass] grass
   *[weed] weed
} pollen levels will { $size ->
    [1] slightly
    [2] moderately
   *[other] drastically
} rise.
alert-pollen-drop = { $day ->
    [0] Today
    [1] Tomorrow
   *[other] In { $day } days
} { $kind ->
    [tree] tree
    [grass] grass
   *[weed] weed
} pollen levels will { $size ->
    [1] slightly
    [2] moderately
   *[other] drastically
} drop.

## What to do when the air changes: air-{change}-{audience}. "worse-…" is air getting worse
## and reaching that category, "better-…" air getting better and reaching it ("unhealthy": Low
## or Poor air). Audiences: general (everyone), children, older-adults, heart-or-lung (people
## with heart or lung disease, asthma included), pregnancy, athletes.
air-worse-good-general = Air quality stays good for most people; no change to outdoor plans is needed.
air-worse-moderate-general = People sensitive to air pollution should consider shorter or lighter outdoor activity.
air-worse-low-general = Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution.
air-worse-poor-general = Avoid strenuous outdoor activity; move exercise indoors and keep windows closed.
air-worse-extreme-general = Air pollution is extreme: everyone should avoid outdoor physical activity, stay indoors with windows closed and use an air purifier if you have one.
air-better-good-general = A good time for outdoor activity and for airing your home.
air-better-moderate-general = Air quality is improving; most people can resume normal outdoor activity.
air-better-unhealthy-general = Air quality is improving but still unhealthy; keep limiting prolonged outdoor exertion.

air-worse-good-children = Air quality stays good; children can play and do sport outdoors as usual.
air-worse-moderate-children = Keep children's outdoor play shorter and calmer, with more breaks, especially for children with asthma.
air-worse-low-children = Children should avoid long or heavy outdoor exertion; move sport and active play indoors.
air-worse-poor-children = Keep children indoors with windows closed; postpone outdoor sport and active play.
air-worse-extreme-children = Air pollution is extreme: keep children indoors with windows closed, with no outdoor play or sport, and keep school runs short.
air-better-good-children = A good time for children to play and do sport outdoors.
air-better-moderate-children = Air quality is improving; children can return to outdoor play, with breaks for those with asthma.
air-better-unhealthy-children = Air quality is improving but still unhealthy; keep children's outdoor play short and calm.

air-worse-good-older-adults = Air quality stays good; older adults can keep their outdoor plans.
air-worse-moderate-older-adults = Older adults should prefer shorter or lighter outdoor activity, such as an easy walk instead of a long one.
air-worse-low-older-adults = Older adults should avoid long or heavy outdoor exertion and watch for breathlessness or chest discomfort.
air-worse-poor-older-adults = Older adults should stay indoors with windows closed and keep physical activity light.
air-worse-extreme-older-adults = Air pollution is extreme: older adults should stay indoors with windows closed, rest, and seek medical help for chest pain or breathlessness.
air-better-good-older-adults = A good time for older adults to walk outdoors and air the home.
air-better-moderate-older-adults = Air quality is improving; older adults can resume their usual outdoor activity at an easy pace.
air-better-unhealthy-older-adults = Air quality is improving but still unhealthy; older adults should keep outdoor activity short and light.

air-worse-good-heart-or-lung = Air quality stays good; keep to your usual activity and care plan.
air-worse-moderate-heart-or-lung = With heart or lung disease, choose lighter outdoor activity and keep your reliever medicine at hand.
air-worse-low-heart-or-lung = With heart or lung disease, avoid long or heavy outdoor exertion, keep your inhaler or medicine at hand and follow your care plan.
air-worse-poor-heart-or-lung = With heart or lung disease, stay indoors with windows closed, follow your care plan and seek medical advice if symptoms worsen.
air-worse-extreme-heart-or-lung = Air pollution is extreme: with heart or lung disease stay indoors with windows closed, take medicine as your care plan says and seek medical help at once if symptoms worsen.
air-better-good-heart-or-lung = A good time for outdoor activity and airing your home; keep your medicine at hand as usual.
air-better-moderate-heart-or-lung = Air quality is improving; resume your usual activity at an easy pace, with your medicine at hand.
air-better-unhealthy-heart-or-lung = Air quality is improving but still unhealthy; keep avoiding heavy outdoor exertion and follow your care plan.

air-worse-good-pregnancy = Air quality stays good; outdoor walks and activity are fine during pregnancy.
air-worse-moderate-pregnancy = During pregnancy, prefer shorter or lighter outdoor activity and routes away from busy roads.
air-worse-low-pregnancy = During pregnancy, limit prolonged outdoor exertion and time near heavy traffic.
air-worse-poor-pregnancy = During pregnancy, avoid strenuous outdoor activity and stay indoors with windows closed where you can.
air-worse-extreme-pregnancy = Air pollution is extreme: during pregnancy stay indoors with windows closed, avoid exertion and keep trips outside short.
air-better-good-pregnancy = A good time for an outdoor walk and for airing your home.
air-better-moderate-pregnancy = Air quality is improving; resume usual outdoor activity, preferring routes away from busy roads.
air-better-unhealthy-pregnancy = Air quality is improving but still unhealthy; during pregnancy keep outdoor exertion short.

air-worse-good-athletes = Air quality stays good; train outdoors as planned.
air-worse-moderate-athletes = Consider easing long or high-intensity outdoor sessions, or training at a cleaner time of day.
air-worse-low-athletes = Move hard or long training indoors or to cleaner hours; keep outdoor sessions easy.
air-worse-poor-athletes = Train indoors; postpone hard outdoor sessions until the air improves.
air-worse-extreme-athletes = Air pollution is extreme: cancel outdoor training and competition; keep indoor sessions light if the air indoors is not filtered.
air-better-good-athletes = A good time for outdoor training, hard sessions included.
air-better-moderate-athletes = Air quality is improving; normal outdoor training can resume, saving the hardest sessions for cleaner air.
air-better-unhealthy-athletes = Air quality is improving but still unhealthy; keep hard training indoors for now.

## What to do when pollen changes: pollen-{change}-{audience}. "up-…" is pollen rising and
## reaching that level ("low": None to Low; "high": High or Very high), "down-…" falling to it.
pollen-up-low-general = Pollen stays low; most allergy sufferers will not be affected.
pollen-up-moderate-general = Allergy sufferers should keep their medication at hand.
pollen-up-high-general = Allergy sufferers should take their medication early, limit time outdoors and keep windows closed.
pollen-down-low-general = A good time for outdoor activity, even with a pollen allergy.
pollen-down-moderate-general = Pollen is easing but still moderate; allergy sufferers should stay prepared.
pollen-down-high-general = Pollen is easing but remains high; allergy sufferers should keep taking precautions.

pollen-up-low-children = Pollen stays low; children with hay fever can play outdoors as usual.
pollen-up-moderate-children = Keep the allergy medicine of children with hay fever at hand; washing hands and face after outdoor play helps.
pollen-up-high-children = Give children with hay fever their medicine before going out, keep outdoor play short and wash their hair and hands afterwards.
pollen-down-low-children = A good time for children to play outdoors, even with hay fever.
pollen-down-moderate-children = Pollen is easing but still moderate; keep children's allergy medicine at hand.
pollen-down-high-children = Pollen is easing but remains high; children with hay fever should keep taking their medicine and play outdoors for shorter spells.

pollen-up-low-older-adults = Pollen stays low; older adults with allergies will rarely notice it.
pollen-up-moderate-older-adults = Older adults with a pollen allergy should keep their medication at hand; a pharmacist can say which remedies suit their other medicines.
pollen-up-high-older-adults = Older adults with a pollen allergy should take their medication early, limit time outdoors and keep windows closed.
pollen-down-low-older-adults = A good time for older adults to be outdoors, even with a pollen allergy.
pollen-down-moderate-older-adults = Pollen is easing but still moderate; older adults with allergies should stay prepared.
pollen-down-high-older-adults = Pollen is easing but remains high; older adults with allergies should keep taking precautions.

pollen-up-low-heart-or-lung = Pollen stays low; keep to your usual care plan.
pollen-up-moderate-heart-or-lung = Pollen can set off asthma: keep your reliever inhaler and allergy medicine at hand.
pollen-up-high-heart-or-lung = High pollen can set off asthma attacks: take your preventer as prescribed, carry your reliever, limit time outdoors and keep windows closed.
pollen-down-low-heart-or-lung = Pollen is low; a good time for outdoor activity, following your usual care plan.
pollen-down-moderate-heart-or-lung = Pollen is easing but still moderate; keep your reliever inhaler at hand.
pollen-down-high-heart-or-lung = Pollen is easing but remains high; keep taking your preventer and carry your reliever.

pollen-up-low-pregnancy = Pollen stays low; hay fever is unlikely to bother you.
pollen-up-moderate-pregnancy = With hay fever in pregnancy, keep at hand a remedy your doctor or pharmacist has approved.
pollen-up-high-pregnancy = With hay fever in pregnancy, use the remedy your doctor or pharmacist approved, limit time outdoors and keep windows closed.
pollen-down-low-pregnancy = A good time for an outdoor walk, even with hay fever.
pollen-down-moderate-pregnancy = Pollen is easing but still moderate; keep your approved hay fever remedy at hand.
pollen-down-high-pregnancy = Pollen is easing but remains high; keep using your approved hay fever remedy and limit time outdoors.

pollen-up-low-athletes = Pollen stays low; outdoor training should not be affected.
pollen-up-moderate-athletes = With hay fever, take your medication before outdoor training and shower after it.
pollen-up-high-athletes = With hay fever, move hard sessions indoors, take your medication early and shower after outdoor training.
pollen-down-low-athletes = A good time for outdoor training, even with hay fever.
pollen-down-moderate-athletes = Pollen is easing but still moderate; with hay fever, keep your medication at hand for outdoor training.
pollen-down-high-athletes = Pollen is easing but remains high; with hay fever, keep hard sessions indoors for now.
