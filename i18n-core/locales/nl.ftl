## Nederlandse vertaling van de catalogus (bron: en.ftl).
## Ids, variabelen en selectorsleutels blijven ongewijzigd; alleen de tekst na `=` is vertaald.
## Aanspreekvorm in adviezen: "u".

## Naam van de taal, in de taal zelf.
language-name = Nederlands

## Categorieën van de schone-luchtindex (0 tot 100, 100 is het schoonst): de kwaliteit van de lucht.
ci-excellent = Uitstekend
ci-good = Goed
ci-moderate = Matig
ci-low = Onvoldoende
ci-poor = Slecht
ci-extremely-poor = Extreem slecht

## Europese luchtkwaliteitsindex van het Europees Milieuagentschap (EEA): de zes klassen.
eaqi-good = Goed
eaqi-fair = Redelijk
eaqi-moderate = Matig
eaqi-poor = Slecht
eaqi-very-poor = Zeer slecht
eaqi-extremely-poor = Extreem slecht

## Categorieën van de US AQI (EPA).
usa-epa-good = Goed
usa-epa-moderate = Matig
usa-epa-unhealthy-for-sensitive-groups = Ongezond voor gevoelige groepen
usa-epa-unhealthy = Ongezond
usa-epa-very-unhealthy = Zeer ongezond
usa-epa-hazardous = Gevaarlijk

## Namen van de indexen.
index-ci = Schone-luchtindex (0 tot 100, hoger is schoner)
index-eaqi = Europese luchtkwaliteitsindex (EEA)
index-usa-epa = US AQI (EPA)

## Nationale indexen: namen en categorieën.
index-gbr-defra = Dagelijkse luchtkwaliteitsindex (VK, Defra)
gbr-defra-low = Laag
gbr-defra-moderate = Matig
gbr-defra-high = Hoog
gbr-defra-very-high = Zeer hoog
index-ind-cpcb = Nationale luchtkwaliteitsindex (India, CPCB)
ind-cpcb-good = Goed
ind-cpcb-satisfactory = Voldoende
ind-cpcb-moderate = Matig
ind-cpcb-poor = Slecht
ind-cpcb-very-poor = Zeer slecht
ind-cpcb-severe = Ernstig
index-chn-mep = Luchtkwaliteitsindex (China, MEE)
chn-mep-excellent = Uitstekend
chn-mep-good = Goed
chn-mep-lightly-polluted = Licht vervuild
chn-mep-moderately-polluted = Matig vervuild
chn-mep-heavily-polluted = Zwaar vervuild
chn-mep-severely-polluted = Ernstig vervuild
index-can-ec = Gezondheidsindex luchtkwaliteit (Canada, ECCC)
can-ec-low-risk = Laag risico
can-ec-moderate-risk = Matig risico
can-ec-high-risk = Hoog risico
can-ec-very-high-risk = Zeer hoog risico

## Planten waarvan de pollen worden geteld, als losse namen.
plant-alder = Els
plant-birch = Berk
plant-olive = Olijf
plant-grass = Grassen
plant-mugwort = Bijvoet
plant-ragweed = Ambrosia

## Pollenniveaus, 0 tot 5: hoeveel pollen er in de lucht zijn.
pollen-level-none = Geen
pollen-level-very-low = Zeer laag
pollen-level-low = Laag
pollen-level-moderate = Matig
pollen-level-high = Hoog
pollen-level-very-high = Zeer hoog

## Pollensoorten, als woord in een zin, met kleine letter.
pollen-type-tree = bomen
pollen-type-grass = grassen
pollen-type-weed = kruiden

## Het getal in een luchtkwaliteitsmelding en wat ervoor in de plaats komt.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = niet beschikbaar
aqi-above = boven { $value }
aqi-at-least = minstens { $value }

## Duur van een episode.
duration-hours = { $n ->
    [one] { $n } uur
   *[other] { $n } uur
}
duration-days = { $n ->
    [one] { $n } dag
   *[other] { $n } dagen
}
duration-at-least = minstens { $duration }

## Standaardbeschrijving van een luchtkwaliteitsmelding.
alert-air-worse = Over { $hours ->
    [one] { $hours } uur
   *[other] { $hours } uur
} wordt de luchtkwaliteit naar verwachting slechter ({ $aqi }).
alert-air-better = Over { $hours ->
    [one] { $hours } uur
   *[other] { $hours } uur
} wordt de luchtkwaliteit naar verwachting beter ({ $aqi }).

## Standaardbeschrijving van een pollenmelding.
alert-pollen-rise = { $day ->
    [0] Vandaag
    [1] Morgen
   *[other] Over { $day } dagen
} stijgt de hoeveelheid { $kind ->
    [tree] boompollen
    [grass] graspollen
   *[weed] kruidenpollen
} { $size ->
    [1] licht
    [2] matig
   *[other] sterk
}.
alert-pollen-drop = { $day ->
    [0] Vandaag
    [1] Morgen
   *[other] Over { $day } dagen
} daalt de hoeveelheid { $kind ->
    [tree] boompollen
    [grass] graspollen
   *[weed] kruidenpollen
} { $size ->
    [1] licht
    [2] matig
   *[other] sterk
}.

## Adviezen bij veranderende luchtkwaliteit: air-{change}-{audience}.
air-worse-good-general = De luchtkwaliteit blijft voor de meeste mensen goed; u hoeft uw plannen buiten niet aan te passen.
air-worse-moderate-general = Bent u gevoelig voor luchtverontreiniging, overweeg dan om buiten korter of minder zwaar te bewegen.
air-worse-low-general = Beperk langdurige of zware inspanning buiten, vooral als u gevoelig bent voor luchtverontreiniging.
air-worse-poor-general = Vermijd zware inspanning buiten; sport binnen en houd de ramen dicht.
air-worse-extreme-general = De luchtverontreiniging is extreem: iedereen moet lichamelijke inspanning buiten vermijden. Blijf binnen met de ramen dicht en gebruik een luchtreiniger als u die heeft.
air-better-good-general = Een goed moment om buiten actief te zijn en uw huis te luchten.
air-better-moderate-general = De luchtkwaliteit verbetert; de meeste mensen kunnen weer gewoon buiten actief zijn.
air-better-unhealthy-general = De luchtkwaliteit verbetert, maar is nog ongezond; beperk langdurige inspanning buiten nog steeds.

air-worse-good-children = De luchtkwaliteit blijft goed; kinderen kunnen zoals gewoonlijk buiten spelen en sporten.
air-worse-moderate-children = Laat kinderen korter en rustiger buiten spelen, met meer pauzes, vooral kinderen met astma.
air-worse-low-children = Kinderen kunnen beter geen lange of zware inspanning buiten leveren; laat ze binnen sporten en actief spelen.
air-worse-poor-children = Houd kinderen binnen met de ramen dicht; stel sporten en actief buitenspelen uit.
air-worse-extreme-children = De luchtverontreiniging is extreem: houd kinderen binnen met de ramen dicht, zonder buitenspelen of sport, en houd de weg naar school en terug kort.
air-better-good-children = Een goed moment voor kinderen om buiten te spelen en te sporten.
air-better-moderate-children = De luchtkwaliteit verbetert; kinderen kunnen weer buiten spelen, met pauzes voor kinderen met astma.
air-better-unhealthy-children = De luchtkwaliteit verbetert, maar is nog ongezond; laat kinderen kort en rustig buiten spelen.

air-worse-good-older-adults = De luchtkwaliteit blijft goed; ouderen kunnen hun plannen buiten gewoon doorzetten.
air-worse-moderate-older-adults = Ouderen kiezen buiten beter voor kortere of lichtere activiteiten, zoals een korte, rustige wandeling in plaats van een lange.
air-worse-low-older-adults = Ouderen kunnen beter lange of zware inspanning buiten vermijden en moeten letten op kortademigheid of klachten op de borst.
air-worse-poor-older-adults = Ouderen blijven het best binnen met de ramen dicht en bewegen alleen licht.
air-worse-extreme-older-adults = De luchtverontreiniging is extreem: ouderen blijven het best binnen met de ramen dicht, rusten uit en zoeken medische hulp bij pijn op de borst of kortademigheid.
air-better-good-older-adults = Een goed moment voor ouderen om buiten te wandelen en het huis te luchten.
air-better-moderate-older-adults = De luchtkwaliteit verbetert; ouderen kunnen hun gewone activiteiten buiten in een rustig tempo hervatten.
air-better-unhealthy-older-adults = De luchtkwaliteit verbetert, maar is nog ongezond; ouderen houden activiteiten buiten het best kort en licht.

air-worse-good-heart-or-lung = De luchtkwaliteit blijft goed; ga door met uw gewone activiteiten en volg uw behandelplan.
air-worse-moderate-heart-or-lung = Heeft u een hart- of longziekte, kies dan voor lichtere activiteiten buiten en houd uw noodmedicatie bij de hand.
air-worse-low-heart-or-lung = Heeft u een hart- of longziekte, vermijd dan lange of zware inspanning buiten, houd uw puffer of medicijnen bij de hand en volg uw behandelplan.
air-worse-poor-heart-or-lung = Heeft u een hart- of longziekte, blijf dan binnen met de ramen dicht, volg uw behandelplan en vraag medisch advies als uw klachten erger worden.
air-worse-extreme-heart-or-lung = De luchtverontreiniging is extreem: heeft u een hart- of longziekte, blijf dan binnen met de ramen dicht, neem uw medicijnen volgens uw behandelplan en zoek direct medische hulp als uw klachten erger worden.
air-better-good-heart-or-lung = Een goed moment om buiten actief te zijn en uw huis te luchten; houd uw medicijnen zoals altijd bij de hand.
air-better-moderate-heart-or-lung = De luchtkwaliteit verbetert; hervat uw gewone activiteiten in een rustig tempo en houd uw medicijnen bij de hand.
air-better-unhealthy-heart-or-lung = De luchtkwaliteit verbetert, maar is nog ongezond; blijf zware inspanning buiten vermijden en volg uw behandelplan.

air-worse-good-pregnancy = De luchtkwaliteit blijft goed; wandelen en bewegen buiten kan tijdens de zwangerschap gewoon.
air-worse-moderate-pregnancy = Bent u zwanger, kies dan buiten voor kortere of lichtere activiteiten en voor routes weg van drukke wegen.
air-worse-low-pregnancy = Bent u zwanger, beperk dan langdurige inspanning buiten en de tijd in de buurt van druk verkeer.
air-worse-poor-pregnancy = Bent u zwanger, vermijd dan zware inspanning buiten en blijf zo veel mogelijk binnen met de ramen dicht.
air-worse-extreme-pregnancy = De luchtverontreiniging is extreem: bent u zwanger, blijf dan binnen met de ramen dicht, vermijd inspanning en ga alleen kort naar buiten.
air-better-good-pregnancy = Een goed moment voor een wandeling buiten en om uw huis te luchten.
air-better-moderate-pregnancy = De luchtkwaliteit verbetert; hervat uw gewone activiteiten buiten en kies bij voorkeur routes weg van drukke wegen.
air-better-unhealthy-pregnancy = De luchtkwaliteit verbetert, maar is nog ongezond; houd inspanning buiten tijdens de zwangerschap kort.

air-worse-good-athletes = De luchtkwaliteit blijft goed; train buiten zoals gepland.
air-worse-moderate-athletes = Overweeg lange of intensieve trainingen buiten lichter te maken, of train op een tijdstip waarop de lucht schoner is.
air-worse-low-athletes = Verplaats zware of lange trainingen naar binnen of naar uren met schonere lucht; houd trainingen buiten licht.
air-worse-poor-athletes = Train binnen; stel zware trainingen buiten uit tot de lucht beter is.
air-worse-extreme-athletes = De luchtverontreiniging is extreem: zeg trainingen en wedstrijden buiten af; houd trainingen binnen licht als de binnenlucht niet wordt gefilterd.
air-better-good-athletes = Een goed moment om buiten te trainen, ook zwaar.
air-better-moderate-athletes = De luchtkwaliteit verbetert; u kunt weer gewoon buiten trainen, maar bewaar de zwaarste trainingen voor schonere lucht.
air-better-unhealthy-athletes = De luchtkwaliteit verbetert, maar is nog ongezond; houd zware trainingen voorlopig binnen.

## Adviezen bij veranderende pollenniveaus: pollen-{change}-{audience}.
pollen-up-low-general = De hoeveelheid pollen blijft laag; de meeste mensen met een allergie merken er niets van.
pollen-up-moderate-general = Heeft u een pollenallergie, houd dan uw medicijnen bij de hand.
pollen-up-high-general = Heeft u een pollenallergie, neem dan op tijd uw medicijnen, blijf minder lang buiten en houd de ramen dicht.
pollen-down-low-general = Een goed moment om buiten actief te zijn, ook met een pollenallergie.
pollen-down-moderate-general = De hoeveelheid pollen neemt af, maar is nog matig; heeft u een pollenallergie, blijf dan voorbereid.
pollen-down-high-general = De hoeveelheid pollen neemt af, maar is nog hoog; heeft u een pollenallergie, blijf dan voorzorgsmaatregelen nemen.

pollen-up-low-children = De hoeveelheid pollen blijft laag; kinderen met hooikoorts kunnen gewoon buiten spelen.
pollen-up-moderate-children = Houd de allergiemedicijnen van kinderen met hooikoorts bij de hand; handen en gezicht wassen na het buitenspelen helpt.
pollen-up-high-children = Geef kinderen met hooikoorts hun medicijnen voordat ze naar buiten gaan, laat ze kort buiten spelen en was daarna hun haar en handen.
pollen-down-low-children = Een goed moment voor kinderen om buiten te spelen, ook met hooikoorts.
pollen-down-moderate-children = De hoeveelheid pollen neemt af, maar is nog matig; houd de allergiemedicijnen van kinderen bij de hand.
pollen-down-high-children = De hoeveelheid pollen neemt af, maar is nog hoog; kinderen met hooikoorts blijven hun medicijnen gebruiken en spelen korter buiten.

pollen-up-low-older-adults = De hoeveelheid pollen blijft laag; ouderen met een allergie merken er weinig van.
pollen-up-moderate-older-adults = Ouderen met een pollenallergie houden hun medicijnen het best bij de hand; de apotheek kan zeggen welke middelen passen bij hun andere medicijnen.
pollen-up-high-older-adults = Ouderen met een pollenallergie nemen het best op tijd hun medicijnen, blijven minder lang buiten en houden de ramen dicht.
pollen-down-low-older-adults = Een goed moment voor ouderen om buiten te zijn, ook met een pollenallergie.
pollen-down-moderate-older-adults = De hoeveelheid pollen neemt af, maar is nog matig; ouderen met een allergie blijven het best voorbereid.
pollen-down-high-older-adults = De hoeveelheid pollen neemt af, maar is nog hoog; ouderen met een allergie blijven het best voorzorgsmaatregelen nemen.

pollen-up-low-heart-or-lung = De hoeveelheid pollen blijft laag; volg uw gewone behandelplan.
pollen-up-moderate-heart-or-lung = Pollen kunnen astma uitlokken: houd uw luchtwegverwijder en allergiemedicijnen bij de hand.
pollen-up-high-heart-or-lung = Veel pollen kunnen een astma-aanval uitlokken: gebruik uw ontstekingsremmer zoals voorgeschreven, neem uw luchtwegverwijder mee, blijf minder lang buiten en houd de ramen dicht.
pollen-down-low-heart-or-lung = Er zijn weinig pollen; een goed moment om buiten actief te zijn, volgens uw gewone behandelplan.
pollen-down-moderate-heart-or-lung = De hoeveelheid pollen neemt af, maar is nog matig; houd uw luchtwegverwijder bij de hand.
pollen-down-high-heart-or-lung = De hoeveelheid pollen neemt af, maar is nog hoog; blijf uw ontstekingsremmer gebruiken en neem uw luchtwegverwijder mee.

pollen-up-low-pregnancy = De hoeveelheid pollen blijft laag; u heeft waarschijnlijk weinig last van hooikoorts.
pollen-up-moderate-pregnancy = Heeft u hooikoorts en bent u zwanger, houd dan een middel bij de hand dat uw arts of apotheker heeft goedgekeurd.
pollen-up-high-pregnancy = Heeft u hooikoorts en bent u zwanger, gebruik dan het middel dat uw arts of apotheker heeft goedgekeurd, blijf minder lang buiten en houd de ramen dicht.
pollen-down-low-pregnancy = Een goed moment voor een wandeling buiten, ook met hooikoorts.
pollen-down-moderate-pregnancy = De hoeveelheid pollen neemt af, maar is nog matig; houd uw goedgekeurde middel tegen hooikoorts bij de hand.
pollen-down-high-pregnancy = De hoeveelheid pollen neemt af, maar is nog hoog; blijf uw goedgekeurde middel tegen hooikoorts gebruiken en blijf minder lang buiten.

pollen-up-low-athletes = De hoeveelheid pollen blijft laag; dit heeft naar verwachting geen invloed op buiten trainen.
pollen-up-moderate-athletes = Heeft u hooikoorts, neem dan uw medicijnen voor het buiten trainen en douche daarna.
pollen-up-high-athletes = Heeft u hooikoorts, verplaats zware trainingen dan naar binnen, neem op tijd uw medicijnen en douche na het buiten trainen.
pollen-down-low-athletes = Een goed moment om buiten te trainen, ook met hooikoorts.
pollen-down-moderate-athletes = De hoeveelheid pollen neemt af, maar is nog matig; heeft u hooikoorts, houd dan uw medicijnen bij de hand als u buiten traint.
pollen-down-high-athletes = De hoeveelheid pollen neemt af, maar is nog hoog; heeft u hooikoorts, houd zware trainingen dan voorlopig binnen.
