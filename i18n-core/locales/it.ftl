## Italian (it), translated from en.ftl. Ids, variables and selector keys as in en.ftl.

## The language's own name.
language-name = Italiano

## Cleanliness index categories (0 to 100, 100 cleanest).
ci-excellent = Eccellente
ci-good = Buona
ci-moderate = Moderata
ci-low = Mediocre
ci-poor = Scadente
ci-extremely-poor = Estremamente scadente

## European Air Quality Index (EEA) bands.
eaqi-good = Buona
eaqi-fair = Discreta
eaqi-moderate = Moderata
eaqi-poor = Scadente
eaqi-very-poor = Molto scadente
eaqi-extremely-poor = Estremamente scadente

## US EPA AQI categories.
usa-epa-good = Buona
usa-epa-moderate = Moderata
usa-epa-unhealthy-for-sensitive-groups = Malsana per i gruppi sensibili
usa-epa-unhealthy = Malsana
usa-epa-very-unhealthy = Molto malsana
usa-epa-hazardous = Pericolosa

## Index names.
index-ci = Indice di pulizia dell'aria (da 0 a 100, più è alto, più l'aria è pulita)
index-eaqi = Indice europeo della qualità dell'aria (EEA)
index-usa-epa = US AQI (EPA)

## National indexes and their categories.
index-gbr-defra = Indice giornaliero della qualità dell'aria (Regno Unito, Defra)
gbr-defra-low = Basso
gbr-defra-moderate = Moderato
gbr-defra-high = Alto
gbr-defra-very-high = Molto alto
index-ind-cpcb = Indice nazionale della qualità dell'aria (India, CPCB)
ind-cpcb-good = Buona
ind-cpcb-satisfactory = Soddisfacente
ind-cpcb-moderate = Moderata
ind-cpcb-poor = Scadente
ind-cpcb-very-poor = Molto scadente
ind-cpcb-severe = Grave
index-chn-mep = Indice della qualità dell'aria (Cina, MEE)
chn-mep-excellent = Eccellente
chn-mep-good = Buona
chn-mep-lightly-polluted = Leggermente inquinata
chn-mep-moderately-polluted = Moderatamente inquinata
chn-mep-heavily-polluted = Fortemente inquinata
chn-mep-severely-polluted = Gravemente inquinata
index-can-ec = Indice di qualità dell'aria e salute (Canada, ECCC)
can-ec-low-risk = Rischio basso
can-ec-moderate-risk = Rischio moderato
can-ec-high-risk = Rischio alto
can-ec-very-high-risk = Rischio molto alto

## Plants whose pollen is counted.
plant-alder = Ontano
plant-birch = Betulla
plant-olive = Olivo
plant-grass = Graminacee
plant-mugwort = Artemisia
plant-ragweed = Ambrosia

## Pollen levels, 0 to 5.
pollen-level-none = Assente
pollen-level-very-low = Molto basso
pollen-level-low = Basso
pollen-level-moderate = Medio
pollen-level-high = Alto
pollen-level-very-high = Molto alto

## Pollen types, for use inside a sentence.
pollen-type-tree = pollini di alberi
pollen-type-grass = pollini di graminacee
pollen-type-weed = pollini di erbacee

## The number an air-quality alert shows, and what stands in for it.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = non disponibile
aqi-above = oltre { $value }
aqi-at-least = almeno { $value }

## How long an episode lasts.
duration-hours = { $n ->
    [one] { $n } ora
   *[other] { $n } ore
}
duration-days = { $n ->
    [one] { $n } giorno
   *[other] { $n } giorni
}
duration-at-least = almeno { $duration }

## Air-quality alert default descriptions.
alert-air-worse = Tra { $hours ->
    [one] { $hours } ora
   *[other] { $hours } ore
} la qualità dell'aria dovrebbe peggiorare ({ $aqi }).
alert-air-better = Tra { $hours ->
    [one] { $hours } ora
   *[other] { $hours } ore
} la qualità dell'aria dovrebbe migliorare ({ $aqi }).

## Pollen alert default descriptions ($day: 0 today, 1 tomorrow, more; $kind; $size).
alert-pollen-rise = { $day ->
    [0] Oggi
    [1] Domani
   *[other] Tra { $day } giorni
} la concentrazione di { $kind ->
    [tree] pollini di alberi
    [grass] pollini di graminacee
   *[weed] pollini di erbacee
} aumenterà { $size ->
    [1] leggermente
    [2] moderatamente
   *[other] fortemente
}.
alert-pollen-drop = { $day ->
    [0] Oggi
    [1] Domani
   *[other] Tra { $day } giorni
} la concentrazione di { $kind ->
    [tree] pollini di alberi
    [grass] pollini di graminacee
   *[weed] pollini di erbacee
} diminuirà { $size ->
    [1] leggermente
    [2] moderatamente
   *[other] fortemente
}.

## Advice when the air changes: air-{change}-{audience}.
air-worse-good-general = La qualità dell'aria resta buona per la maggior parte delle persone; non è necessario cambiare i programmi all'aperto.
air-worse-moderate-general = Le persone sensibili all'inquinamento atmosferico dovrebbero valutare attività all'aperto più brevi o meno intense.
air-worse-low-general = Limitare gli sforzi prolungati o intensi all'aperto, soprattutto se si è sensibili all'inquinamento atmosferico.
air-worse-poor-general = Evitare le attività faticose all'aperto; svolgere l'attività fisica al chiuso e tenere le finestre chiuse.
air-worse-extreme-general = L'inquinamento atmosferico è estremo: tutti dovrebbero evitare l'attività fisica all'aperto, restare in casa con le finestre chiuse e usare un purificatore d'aria, se disponibile.
air-better-good-general = Un buon momento per le attività all'aperto e per arieggiare la casa.
air-better-moderate-general = La qualità dell'aria sta migliorando; la maggior parte delle persone può riprendere le normali attività all'aperto.
air-better-unhealthy-general = La qualità dell'aria sta migliorando ma è ancora dannosa per la salute; continuare a limitare gli sforzi prolungati all'aperto.

air-worse-good-children = La qualità dell'aria resta buona; i bambini possono giocare e fare sport all'aperto come di consueto.
air-worse-moderate-children = Far giocare i bambini all'aperto per meno tempo e in modo più tranquillo, con più pause, soprattutto se hanno l'asma.
air-worse-low-children = I bambini dovrebbero evitare sforzi lunghi o intensi all'aperto; spostare sport e giochi di movimento al chiuso.
air-worse-poor-children = Tenere i bambini in casa con le finestre chiuse; rimandare sport e giochi di movimento all'aperto.
air-worse-extreme-children = L'inquinamento atmosferico è estremo: tenere i bambini in casa con le finestre chiuse, senza giochi né sport all'aperto, e mantenere brevi i tragitti casa-scuola.
air-better-good-children = Un buon momento perché i bambini giochino e facciano sport all'aperto.
air-better-moderate-children = La qualità dell'aria sta migliorando; i bambini possono tornare a giocare all'aperto, con pause per chi ha l'asma.
air-better-unhealthy-children = La qualità dell'aria sta migliorando ma è ancora dannosa per la salute; far giocare i bambini all'aperto per poco tempo e con calma.

air-worse-good-older-adults = La qualità dell'aria resta buona; le persone anziane possono mantenere i loro programmi all'aperto.
air-worse-moderate-older-adults = Le persone anziane dovrebbero preferire attività all'aperto più brevi o leggere, come una passeggiata tranquilla invece di una lunga.
air-worse-low-older-adults = Le persone anziane dovrebbero evitare sforzi lunghi o intensi all'aperto e fare attenzione a mancanza di fiato o fastidi al petto.
air-worse-poor-older-adults = Le persone anziane dovrebbero restare in casa con le finestre chiuse e limitarsi a un'attività fisica leggera.
air-worse-extreme-older-adults = L'inquinamento atmosferico è estremo: le persone anziane dovrebbero restare in casa con le finestre chiuse, riposare e rivolgersi a un medico in caso di dolore al petto o mancanza di fiato.
air-better-good-older-adults = Un buon momento perché le persone anziane passeggino all'aperto e arieggino la casa.
air-better-moderate-older-adults = La qualità dell'aria sta migliorando; le persone anziane possono riprendere con calma le consuete attività all'aperto.
air-better-unhealthy-older-adults = La qualità dell'aria sta migliorando ma è ancora dannosa per la salute; le persone anziane dovrebbero mantenere le attività all'aperto brevi e leggere.

air-worse-good-heart-or-lung = La qualità dell'aria resta buona; mantenere le attività abituali e seguire il proprio piano terapeutico.
air-worse-moderate-heart-or-lung = In caso di malattie cardiache o polmonari, scegliere attività all'aperto più leggere e tenere a portata di mano il farmaco al bisogno.
air-worse-low-heart-or-lung = In caso di malattie cardiache o polmonari, evitare sforzi lunghi o intensi all'aperto, tenere a portata di mano l'inalatore o i farmaci e seguire il proprio piano terapeutico.
air-worse-poor-heart-or-lung = In caso di malattie cardiache o polmonari, restare in casa con le finestre chiuse, seguire il proprio piano terapeutico e consultare un medico se i sintomi peggiorano.
air-worse-extreme-heart-or-lung = L'inquinamento atmosferico è estremo: in caso di malattie cardiache o polmonari, restare in casa con le finestre chiuse, assumere i farmaci come previsto dal piano terapeutico e rivolgersi subito a un medico se i sintomi peggiorano.
air-better-good-heart-or-lung = Un buon momento per le attività all'aperto e per arieggiare la casa; tenere come sempre i farmaci a portata di mano.
air-better-moderate-heart-or-lung = La qualità dell'aria sta migliorando; riprendere con calma le attività abituali, tenendo i farmaci a portata di mano.
air-better-unhealthy-heart-or-lung = La qualità dell'aria sta migliorando ma è ancora dannosa per la salute; continuare a evitare sforzi intensi all'aperto e seguire il proprio piano terapeutico.

air-worse-good-pregnancy = La qualità dell'aria resta buona; in gravidanza passeggiate e attività all'aperto non presentano problemi.
air-worse-moderate-pregnancy = In gravidanza, preferire attività all'aperto più brevi o leggere e percorsi lontani dalle strade trafficate.
air-worse-low-pregnancy = In gravidanza, limitare gli sforzi prolungati all'aperto e il tempo trascorso vicino al traffico intenso.
air-worse-poor-pregnancy = In gravidanza, evitare attività faticose all'aperto e, quando possibile, restare in casa con le finestre chiuse.
air-worse-extreme-pregnancy = L'inquinamento atmosferico è estremo: in gravidanza, restare in casa con le finestre chiuse, evitare gli sforzi e limitare la durata delle uscite.
air-better-good-pregnancy = Un buon momento per una passeggiata all'aperto e per arieggiare la casa.
air-better-moderate-pregnancy = La qualità dell'aria sta migliorando; riprendere le consuete attività all'aperto, preferendo percorsi lontani dalle strade trafficate.
air-better-unhealthy-pregnancy = La qualità dell'aria sta migliorando ma è ancora dannosa per la salute; in gravidanza, limitare la durata degli sforzi all'aperto.

air-worse-good-athletes = La qualità dell'aria resta buona; allenarsi all'aperto come previsto.
air-worse-moderate-athletes = Valutare di ridurre le sedute lunghe o ad alta intensità all'aperto, oppure di allenarsi in un momento della giornata con aria più pulita.
air-worse-low-athletes = Spostare gli allenamenti duri o lunghi al chiuso o nelle ore con aria più pulita; all'aperto, mantenere sedute leggere.
air-worse-poor-athletes = Allenarsi al chiuso; rimandare le sedute intense all'aperto finché l'aria non migliora.
air-worse-extreme-athletes = L'inquinamento atmosferico è estremo: annullare allenamenti e gare all'aperto; al chiuso, mantenere sedute leggere se l'aria interna non è filtrata.
air-better-good-athletes = Un buon momento per allenarsi all'aperto, anche con sedute intense.
air-better-moderate-athletes = La qualità dell'aria sta migliorando; si può riprendere il normale allenamento all'aperto, riservando le sedute più dure a quando l'aria sarà più pulita.
air-better-unhealthy-athletes = La qualità dell'aria sta migliorando ma è ancora dannosa per la salute; per ora, mantenere gli allenamenti intensi al chiuso.

## Advice when pollen changes: pollen-{change}-{audience}.
pollen-up-low-general = La concentrazione di pollini resta bassa; la maggior parte delle persone allergiche non avrà disturbi.
pollen-up-moderate-general = Le persone allergiche dovrebbero tenere i farmaci a portata di mano.
pollen-up-high-general = Le persone allergiche dovrebbero assumere i farmaci per tempo, limitare il tempo all'aperto e tenere le finestre chiuse.
pollen-down-low-general = Un buon momento per le attività all'aperto, anche con un'allergia ai pollini.
pollen-down-moderate-general = La concentrazione di pollini sta calando ma è ancora media; le persone allergiche dovrebbero restare preparate.
pollen-down-high-general = La concentrazione di pollini sta calando ma resta alta; le persone allergiche dovrebbero continuare a prendere precauzioni.

pollen-up-low-children = La concentrazione di pollini resta bassa; i bambini con allergia ai pollini possono giocare all'aperto come di consueto.
pollen-up-moderate-children = Tenere a portata di mano i farmaci antiallergici dei bambini con allergia ai pollini; è utile lavare loro mani e viso dopo il gioco all'aperto.
pollen-up-high-children = Dare ai bambini con allergia ai pollini il loro farmaco prima che escano, limitare il gioco all'aperto e lavare loro poi capelli e mani.
pollen-down-low-children = Un buon momento per far giocare i bambini all'aperto, anche con allergia ai pollini.
pollen-down-moderate-children = La concentrazione di pollini sta calando ma è ancora media; tenere a portata di mano i farmaci antiallergici dei bambini.
pollen-down-high-children = La concentrazione di pollini sta calando ma resta alta; i bambini con allergia ai pollini dovrebbero continuare la terapia e giocare all'aperto per periodi più brevi.

pollen-up-low-older-adults = La concentrazione di pollini resta bassa; le persone anziane allergiche se ne accorgeranno appena.
pollen-up-moderate-older-adults = Le persone anziane allergiche ai pollini dovrebbero tenere i farmaci a portata di mano; il farmacista può indicare quali rimedi sono compatibili con gli altri medicinali.
pollen-up-high-older-adults = Le persone anziane allergiche ai pollini dovrebbero assumere i farmaci per tempo, limitare il tempo all'aperto e tenere le finestre chiuse.
pollen-down-low-older-adults = Un buon momento perché le persone anziane stiano all'aperto, anche con un'allergia ai pollini.
pollen-down-moderate-older-adults = La concentrazione di pollini sta calando ma è ancora media; le persone anziane allergiche dovrebbero restare preparate.
pollen-down-high-older-adults = La concentrazione di pollini sta calando ma resta alta; le persone anziane allergiche dovrebbero continuare a prendere precauzioni.

pollen-up-low-heart-or-lung = La concentrazione di pollini resta bassa; seguire il proprio piano terapeutico abituale.
pollen-up-moderate-heart-or-lung = I pollini possono scatenare l'asma: tenere a portata di mano l'inalatore al bisogno e i farmaci antiallergici.
pollen-up-high-heart-or-lung = Alte concentrazioni di pollini possono scatenare attacchi d'asma: assumere la terapia di fondo come prescritto, portare con sé l'inalatore al bisogno, limitare il tempo all'aperto e tenere le finestre chiuse.
pollen-down-low-heart-or-lung = La concentrazione di pollini è bassa; un buon momento per le attività all'aperto, seguendo il proprio piano terapeutico abituale.
pollen-down-moderate-heart-or-lung = La concentrazione di pollini sta calando ma è ancora media; tenere a portata di mano l'inalatore al bisogno.
pollen-down-high-heart-or-lung = La concentrazione di pollini sta calando ma resta alta; continuare la terapia di fondo e portare con sé l'inalatore al bisogno.

pollen-up-low-pregnancy = La concentrazione di pollini resta bassa; è improbabile che l'allergia ai pollini dia fastidio.
pollen-up-moderate-pregnancy = In caso di allergia ai pollini in gravidanza, tenere a portata di mano un rimedio approvato dal medico o dal farmacista.
pollen-up-high-pregnancy = In caso di allergia ai pollini in gravidanza, usare il rimedio approvato dal medico o dal farmacista, limitare il tempo all'aperto e tenere le finestre chiuse.
pollen-down-low-pregnancy = Un buon momento per una passeggiata all'aperto, anche con un'allergia ai pollini.
pollen-down-moderate-pregnancy = La concentrazione di pollini sta calando ma è ancora media; tenere a portata di mano il rimedio approvato per l'allergia ai pollini.
pollen-down-high-pregnancy = La concentrazione di pollini sta calando ma resta alta; continuare a usare il rimedio approvato per l'allergia ai pollini e limitare il tempo all'aperto.

pollen-up-low-athletes = La concentrazione di pollini resta bassa; l'allenamento all'aperto non dovrebbe risentirne.
pollen-up-moderate-athletes = In caso di allergia ai pollini, assumere i farmaci prima dell'allenamento all'aperto e fare la doccia dopo.
pollen-up-high-athletes = In caso di allergia ai pollini, spostare le sedute intense al chiuso, assumere i farmaci per tempo e fare la doccia dopo l'allenamento all'aperto.
pollen-down-low-athletes = Un buon momento per allenarsi all'aperto, anche con un'allergia ai pollini.
pollen-down-moderate-athletes = La concentrazione di pollini sta calando ma è ancora media; in caso di allergia ai pollini, tenere i farmaci a portata di mano per l'allenamento all'aperto.
pollen-down-high-athletes = La concentrazione di pollini sta calando ma resta alta; in caso di allergia ai pollini, per ora mantenere le sedute intense al chiuso.
