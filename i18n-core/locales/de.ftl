## German (de), translated from en.ftl. Ids, variables and selector keys as in en.ftl.

## The language's own name.
language-name = Deutsch

## Cleanliness index categories (0 to 100, 100 cleanest).
ci-excellent = Ausgezeichnet
ci-good = Gut
ci-moderate = Mäßig
ci-low = Unbefriedigend
ci-poor = Schlecht
ci-extremely-poor = Extrem schlecht

## European Air Quality Index (EEA) bands.
eaqi-good = Gut
eaqi-fair = Annehmbar
eaqi-moderate = Mäßig
eaqi-poor = Schlecht
eaqi-very-poor = Sehr schlecht
eaqi-extremely-poor = Extrem schlecht

## US EPA AQI categories.
usa-epa-good = Gut
usa-epa-moderate = Mäßig
usa-epa-unhealthy-for-sensitive-groups = Ungesund für empfindliche Gruppen
usa-epa-unhealthy = Ungesund
usa-epa-very-unhealthy = Sehr ungesund
usa-epa-hazardous = Gefährlich

## Index names.
index-ci = Luftreinheitsindex (0 bis 100, je höher, desto sauberer)
index-eaqi = Europäischer Luftqualitätsindex (EEA)
index-usa-epa = US AQI (EPA)

## National indexes and their categories.
index-gbr-defra = Täglicher Luftqualitätsindex (Vereinigtes Königreich, Defra)
gbr-defra-low = Niedrig
gbr-defra-moderate = Mäßig
gbr-defra-high = Hoch
gbr-defra-very-high = Sehr hoch
index-ind-cpcb = Nationaler Luftqualitätsindex (Indien, CPCB)
ind-cpcb-good = Gut
ind-cpcb-satisfactory = Zufriedenstellend
ind-cpcb-moderate = Mäßig
ind-cpcb-poor = Schlecht
ind-cpcb-very-poor = Sehr schlecht
ind-cpcb-severe = Schwerwiegend
index-chn-mep = Luftqualitätsindex (China, MEE)
chn-mep-excellent = Ausgezeichnet
chn-mep-good = Gut
chn-mep-lightly-polluted = Leicht belastet
chn-mep-moderately-polluted = Mäßig belastet
chn-mep-heavily-polluted = Stark belastet
chn-mep-severely-polluted = Sehr stark belastet
index-can-ec = Luftqualitäts-Gesundheitsindex (Kanada, ECCC)
can-ec-low-risk = Geringes Risiko
can-ec-moderate-risk = Mäßiges Risiko
can-ec-high-risk = Hohes Risiko
can-ec-very-high-risk = Sehr hohes Risiko

## Plants whose pollen is counted.
plant-alder = Erle
plant-birch = Birke
plant-olive = Olive
plant-grass = Gräser
plant-mugwort = Beifuß
plant-ragweed = Ambrosia

## Pollen levels, 0 to 5.
pollen-level-none = Keine
pollen-level-very-low = Sehr gering
pollen-level-low = Gering
pollen-level-moderate = Mittel
pollen-level-high = Hoch
pollen-level-very-high = Sehr hoch

## Pollen types, for use inside a sentence.
pollen-type-tree = Baumpollen
pollen-type-grass = Gräserpollen
pollen-type-weed = Kräuterpollen

## The number an air-quality alert shows, and what stands in for it.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = nicht verfügbar
aqi-above = über { $value }
aqi-at-least = mindestens { $value }

## How long an episode lasts.
duration-hours = { $n ->
    [one] { $n } Stunde
   *[other] { $n } Stunden
}
duration-days = { $n ->
    [one] { $n } Tag
   *[other] { $n } Tage
}
duration-at-least = mindestens { $duration }

## Air-quality alert default descriptions.
alert-air-worse = In { $hours ->
    [one] { $hours } Stunde
   *[other] { $hours } Stunden
} wird die Luftqualität voraussichtlich schlechter ({ $aqi }).
alert-air-better = In { $hours ->
    [one] { $hours } Stunde
   *[other] { $hours } Stunden
} wird die Luftqualität voraussichtlich besser ({ $aqi }).

## Pollen alert default descriptions ($day: 0 today, 1 tomorrow, more; $kind; $size).
alert-pollen-rise = { $day ->
    [0] Heute
    [1] Morgen
   *[other] In { $day } Tagen
} steigt die { $kind ->
    [tree] Baumpollenbelastung
    [grass] Gräserpollenbelastung
   *[weed] Kräuterpollenbelastung
} { $size ->
    [1] leicht
    [2] mäßig
   *[other] stark
} an.
alert-pollen-drop = { $day ->
    [0] Heute
    [1] Morgen
   *[other] In { $day } Tagen
} geht die { $kind ->
    [tree] Baumpollenbelastung
    [grass] Gräserpollenbelastung
   *[weed] Kräuterpollenbelastung
} { $size ->
    [1] leicht
    [2] mäßig
   *[other] stark
} zurück.

## Advice when the air changes: air-{change}-{audience}.
air-worse-good-general = Die Luftqualität bleibt für die meisten Menschen gut; Pläne im Freien müssen nicht geändert werden.
air-worse-moderate-general = Wer empfindlich auf Luftschadstoffe reagiert, sollte erwägen, Aktivitäten im Freien kürzer oder weniger anstrengend zu gestalten.
air-worse-low-general = Begrenzen Sie längere oder starke körperliche Anstrengung im Freien, besonders wenn Sie empfindlich auf Luftschadstoffe reagieren.
air-worse-poor-general = Vermeiden Sie anstrengende Aktivitäten im Freien; verlegen Sie Sport nach drinnen und halten Sie die Fenster geschlossen.
air-worse-extreme-general = Die Luftbelastung ist extrem: Alle sollten körperliche Aktivität im Freien meiden, bei geschlossenen Fenstern drinnen bleiben und, falls vorhanden, einen Luftreiniger nutzen.
air-better-good-general = Eine gute Zeit für Aktivitäten im Freien und zum Lüften Ihrer Wohnung.
air-better-moderate-general = Die Luftqualität verbessert sich; die meisten Menschen können ihre üblichen Aktivitäten im Freien wieder aufnehmen.
air-better-unhealthy-general = Die Luftqualität verbessert sich, ist aber noch gesundheitsschädlich; schränken Sie längere Anstrengung im Freien weiterhin ein.

air-worse-good-children = Die Luftqualität bleibt gut; Kinder können wie gewohnt draußen spielen und Sport treiben.
air-worse-moderate-children = Lassen Sie Kinder kürzer und ruhiger draußen spielen, mit mehr Pausen – besonders Kinder mit Asthma.
air-worse-low-children = Kinder sollten lange oder starke Anstrengung im Freien vermeiden; verlegen Sie Sport und Bewegungsspiele nach drinnen.
air-worse-poor-children = Lassen Sie Kinder bei geschlossenen Fenstern drinnen; verschieben Sie Sport und Bewegungsspiele im Freien.
air-worse-extreme-children = Die Luftbelastung ist extrem: Lassen Sie Kinder bei geschlossenen Fenstern drinnen, ohne Spiel oder Sport im Freien, und halten Sie den Schulweg kurz.
air-better-good-children = Eine gute Zeit für Kinder, um draußen zu spielen und Sport zu treiben.
air-better-moderate-children = Die Luftqualität verbessert sich; Kinder können wieder draußen spielen, Kinder mit Asthma mit Pausen.
air-better-unhealthy-children = Die Luftqualität verbessert sich, ist aber noch gesundheitsschädlich; lassen Sie Kinder draußen nur kurz und ruhig spielen.

air-worse-good-older-adults = Die Luftqualität bleibt gut; ältere Menschen können ihre Pläne im Freien beibehalten.
air-worse-moderate-older-adults = Ältere Menschen sollten kürzere oder leichtere Aktivitäten im Freien wählen, etwa einen gemütlichen statt eines langen Spaziergangs.
air-worse-low-older-adults = Ältere Menschen sollten lange oder starke Anstrengung im Freien vermeiden und auf Atemnot oder Beschwerden in der Brust achten.
air-worse-poor-older-adults = Ältere Menschen sollten bei geschlossenen Fenstern drinnen bleiben und sich nur leicht körperlich betätigen.
air-worse-extreme-older-adults = Die Luftbelastung ist extrem: Ältere Menschen sollten bei geschlossenen Fenstern drinnen bleiben, sich schonen und bei Brustschmerzen oder Atemnot ärztliche Hilfe suchen.
air-better-good-older-adults = Eine gute Zeit für ältere Menschen, um draußen spazieren zu gehen und die Wohnung zu lüften.
air-better-moderate-older-adults = Die Luftqualität verbessert sich; ältere Menschen können ihre üblichen Aktivitäten im Freien in ruhigem Tempo wieder aufnehmen.
air-better-unhealthy-older-adults = Die Luftqualität verbessert sich, ist aber noch gesundheitsschädlich; ältere Menschen sollten Aktivitäten im Freien kurz und leicht halten.

air-worse-good-heart-or-lung = Die Luftqualität bleibt gut; bleiben Sie bei Ihrer gewohnten Aktivität und Ihrem Behandlungsplan.
air-worse-moderate-heart-or-lung = Wählen Sie bei Herz- oder Lungenerkrankungen leichtere Aktivitäten im Freien und halten Sie Ihr Bedarfsmedikament griffbereit.
air-worse-low-heart-or-lung = Vermeiden Sie bei Herz- oder Lungenerkrankungen lange oder starke Anstrengung im Freien, halten Sie Ihr Inhalationsspray oder Ihre Medikamente griffbereit und befolgen Sie Ihren Behandlungsplan.
air-worse-poor-heart-or-lung = Bleiben Sie bei Herz- oder Lungenerkrankungen bei geschlossenen Fenstern drinnen, befolgen Sie Ihren Behandlungsplan und holen Sie ärztlichen Rat ein, wenn sich die Beschwerden verschlimmern.
air-worse-extreme-heart-or-lung = Die Luftbelastung ist extrem: Bleiben Sie bei Herz- oder Lungenerkrankungen bei geschlossenen Fenstern drinnen, nehmen Sie Ihre Medikamente laut Behandlungsplan und suchen Sie bei Verschlimmerung sofort ärztliche Hilfe.
air-better-good-heart-or-lung = Eine gute Zeit für Aktivitäten im Freien und zum Lüften; halten Sie Ihre Medikamente wie gewohnt griffbereit.
air-better-moderate-heart-or-lung = Die Luftqualität verbessert sich; nehmen Sie Ihre gewohnten Aktivitäten in ruhigem Tempo wieder auf und halten Sie Ihre Medikamente griffbereit.
air-better-unhealthy-heart-or-lung = Die Luftqualität verbessert sich, ist aber noch gesundheitsschädlich; vermeiden Sie weiterhin starke Anstrengung im Freien und befolgen Sie Ihren Behandlungsplan.

air-worse-good-pregnancy = Die Luftqualität bleibt gut; Spaziergänge und Bewegung im Freien sind in der Schwangerschaft unbedenklich.
air-worse-moderate-pregnancy = Wählen Sie in der Schwangerschaft kürzere oder leichtere Aktivitäten im Freien und Wege abseits stark befahrener Straßen.
air-worse-low-pregnancy = Begrenzen Sie in der Schwangerschaft längere Anstrengung im Freien und die Zeit in der Nähe von dichtem Verkehr.
air-worse-poor-pregnancy = Vermeiden Sie in der Schwangerschaft anstrengende Aktivitäten im Freien und bleiben Sie nach Möglichkeit bei geschlossenen Fenstern drinnen.
air-worse-extreme-pregnancy = Die Luftbelastung ist extrem: Bleiben Sie in der Schwangerschaft bei geschlossenen Fenstern drinnen, vermeiden Sie Anstrengung und halten Sie Wege nach draußen kurz.
air-better-good-pregnancy = Eine gute Zeit für einen Spaziergang im Freien und zum Lüften Ihrer Wohnung.
air-better-moderate-pregnancy = Die Luftqualität verbessert sich; nehmen Sie Ihre üblichen Aktivitäten im Freien wieder auf, am besten auf Wegen abseits stark befahrener Straßen.
air-better-unhealthy-pregnancy = Die Luftqualität verbessert sich, ist aber noch gesundheitsschädlich; halten Sie Anstrengung im Freien in der Schwangerschaft kurz.

air-worse-good-athletes = Die Luftqualität bleibt gut; trainieren Sie wie geplant im Freien.
air-worse-moderate-athletes = Erwägen Sie, lange oder intensive Einheiten im Freien zu reduzieren oder zu einer Tageszeit mit saubererer Luft zu trainieren.
air-worse-low-athletes = Verlegen Sie hartes oder langes Training nach drinnen oder in Stunden mit saubererer Luft; trainieren Sie draußen nur locker.
air-worse-poor-athletes = Trainieren Sie drinnen; verschieben Sie harte Einheiten im Freien, bis sich die Luft bessert.
air-worse-extreme-athletes = Die Luftbelastung ist extrem: Sagen Sie Training und Wettkämpfe im Freien ab; trainieren Sie drinnen nur leicht, wenn die Raumluft nicht gefiltert wird.
air-better-good-athletes = Eine gute Zeit für Training im Freien, auch für harte Einheiten.
air-better-moderate-athletes = Die Luftqualität verbessert sich; normales Training im Freien ist wieder möglich, die härtesten Einheiten aber besser bei saubererer Luft.
air-better-unhealthy-athletes = Die Luftqualität verbessert sich, ist aber noch gesundheitsschädlich; verlegen Sie hartes Training vorerst weiter nach drinnen.

## Advice when pollen changes: pollen-{change}-{audience}.
pollen-up-low-general = Die Pollenbelastung bleibt gering; die meisten Allergiker sind nicht betroffen.
pollen-up-moderate-general = Allergiker sollten ihre Medikamente griffbereit halten.
pollen-up-high-general = Allergiker sollten ihre Medikamente frühzeitig einnehmen, sich weniger im Freien aufhalten und die Fenster geschlossen halten.
pollen-down-low-general = Eine gute Zeit für Aktivitäten im Freien, auch mit Pollenallergie.
pollen-down-moderate-general = Die Pollenbelastung lässt nach, liegt aber noch im mittleren Bereich; Allergiker sollten weiterhin vorbereitet sein.
pollen-down-high-general = Die Pollenbelastung lässt nach, bleibt aber hoch; Allergiker sollten weiterhin vorsorgen.

pollen-up-low-children = Die Pollenbelastung bleibt gering; Kinder mit Heuschnupfen können wie gewohnt draußen spielen.
pollen-up-moderate-children = Halten Sie die Allergiemedikamente von Kindern mit Heuschnupfen griffbereit; es hilft, ihnen nach dem Spielen im Freien Hände und Gesicht zu waschen.
pollen-up-high-children = Geben Sie Kindern mit Heuschnupfen ihr Medikament, bevor sie hinausgehen, halten Sie das Spielen draußen kurz und waschen Sie ihnen danach Haare und Hände.
pollen-down-low-children = Eine gute Zeit für Kinder, draußen zu spielen, auch mit Heuschnupfen.
pollen-down-moderate-children = Die Pollenbelastung lässt nach, liegt aber noch im mittleren Bereich; halten Sie die Allergiemedikamente der Kinder griffbereit.
pollen-down-high-children = Die Pollenbelastung lässt nach, bleibt aber hoch; Kinder mit Heuschnupfen sollten ihre Medikamente weiter nehmen und kürzer draußen spielen.

pollen-up-low-older-adults = Die Pollenbelastung bleibt gering; ältere Menschen mit Allergien werden sie kaum bemerken.
pollen-up-moderate-older-adults = Ältere Menschen mit Pollenallergie sollten ihre Medikamente griffbereit halten; in der Apotheke erfahren sie, welche Mittel zu ihren übrigen Medikamenten passen.
pollen-up-high-older-adults = Ältere Menschen mit Pollenallergie sollten ihre Medikamente frühzeitig einnehmen, sich weniger im Freien aufhalten und die Fenster geschlossen halten.
pollen-down-low-older-adults = Eine gute Zeit für ältere Menschen, sich im Freien aufzuhalten, auch mit Pollenallergie.
pollen-down-moderate-older-adults = Die Pollenbelastung lässt nach, liegt aber noch im mittleren Bereich; ältere Menschen mit Allergien sollten weiterhin vorbereitet sein.
pollen-down-high-older-adults = Die Pollenbelastung lässt nach, bleibt aber hoch; ältere Menschen mit Allergien sollten weiterhin vorsorgen.

pollen-up-low-heart-or-lung = Die Pollenbelastung bleibt gering; halten Sie sich an Ihren gewohnten Behandlungsplan.
pollen-up-moderate-heart-or-lung = Pollen können Asthma auslösen: Halten Sie Ihr Notfallspray und Ihre Allergiemedikamente griffbereit.
pollen-up-high-heart-or-lung = Starker Pollenflug kann Asthmaanfälle auslösen: Nehmen Sie Ihre Dauermedikation wie verordnet, tragen Sie Ihr Notfallspray bei sich, bleiben Sie weniger im Freien und halten Sie die Fenster geschlossen.
pollen-down-low-heart-or-lung = Die Pollenbelastung ist gering; eine gute Zeit für Aktivitäten im Freien nach Ihrem gewohnten Behandlungsplan.
pollen-down-moderate-heart-or-lung = Die Pollenbelastung lässt nach, liegt aber noch im mittleren Bereich; halten Sie Ihr Notfallspray griffbereit.
pollen-down-high-heart-or-lung = Die Pollenbelastung lässt nach, bleibt aber hoch; nehmen Sie Ihre Dauermedikation weiter und tragen Sie Ihr Notfallspray bei sich.

pollen-up-low-pregnancy = Die Pollenbelastung bleibt gering; Heuschnupfen dürfte Sie kaum stören.
pollen-up-moderate-pregnancy = Halten Sie bei Heuschnupfen in der Schwangerschaft ein Mittel griffbereit, das ärztlich oder in der Apotheke für Sie freigegeben wurde.
pollen-up-high-pregnancy = Nutzen Sie bei Heuschnupfen in der Schwangerschaft das ärztlich oder in der Apotheke freigegebene Mittel, bleiben Sie weniger im Freien und halten Sie die Fenster geschlossen.
pollen-down-low-pregnancy = Eine gute Zeit für einen Spaziergang im Freien, auch mit Heuschnupfen.
pollen-down-moderate-pregnancy = Die Pollenbelastung lässt nach, liegt aber noch im mittleren Bereich; halten Sie Ihr freigegebenes Heuschnupfenmittel griffbereit.
pollen-down-high-pregnancy = Die Pollenbelastung lässt nach, bleibt aber hoch; nutzen Sie weiter Ihr freigegebenes Heuschnupfenmittel und bleiben Sie weniger im Freien.

pollen-up-low-athletes = Die Pollenbelastung bleibt gering; Ihr Training im Freien dürfte nicht beeinträchtigt sein.
pollen-up-moderate-athletes = Nehmen Sie bei Heuschnupfen Ihre Medikamente vor dem Training im Freien und duschen Sie danach.
pollen-up-high-athletes = Verlegen Sie bei Heuschnupfen harte Einheiten nach drinnen, nehmen Sie Ihre Medikamente frühzeitig und duschen Sie nach dem Training im Freien.
pollen-down-low-athletes = Eine gute Zeit für Training im Freien, auch mit Heuschnupfen.
pollen-down-moderate-athletes = Die Pollenbelastung lässt nach, liegt aber noch im mittleren Bereich; halten Sie bei Heuschnupfen Ihre Medikamente für das Training im Freien griffbereit.
pollen-down-high-athletes = Die Pollenbelastung lässt nach, bleibt aber hoch; verlegen Sie bei Heuschnupfen harte Einheiten vorerst weiter nach drinnen.
