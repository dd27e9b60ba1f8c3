## French (fr), translated from en.ftl. Ids, variables and selector keys as in en.ftl.

## The language's own name.
language-name = Français

## Cleanliness index categories (0 to 100, 100 cleanest).
ci-excellent = Excellent
ci-good = Bon
ci-moderate = Moyen
ci-low = Médiocre
ci-poor = Mauvais
ci-extremely-poor = Extrêmement mauvais

## European Air Quality Index (EEA) bands.
eaqi-good = Bon
eaqi-fair = Moyen
eaqi-moderate = Dégradé
eaqi-poor = Mauvais
eaqi-very-poor = Très mauvais
eaqi-extremely-poor = Extrêmement mauvais

## US EPA AQI categories.
usa-epa-good = Bon
usa-epa-moderate = Modéré
usa-epa-unhealthy-for-sensitive-groups = Malsain pour les groupes sensibles
usa-epa-unhealthy = Malsain
usa-epa-very-unhealthy = Très malsain
usa-epa-hazardous = Dangereux

## Index names.
index-ci = Indice de propreté de l'air (de 0 à 100, plus il est élevé, plus l'air est propre)
index-eaqi = Indice européen de la qualité de l'air (EEA)
index-usa-epa = US AQI (EPA)

## National indexes and their categories.
index-gbr-defra = Indice quotidien de la qualité de l'air (Royaume-Uni, Defra)
gbr-defra-low = Faible
gbr-defra-moderate = Modéré
gbr-defra-high = Élevé
gbr-defra-very-high = Très élevé
index-ind-cpcb = Indice national de la qualité de l'air (Inde, CPCB)
ind-cpcb-good = Bon
ind-cpcb-satisfactory = Satisfaisant
ind-cpcb-moderate = Modéré
ind-cpcb-poor = Mauvais
ind-cpcb-very-poor = Très mauvais
ind-cpcb-severe = Sévère
index-chn-mep = Indice de la qualité de l'air (Chine, MEE)
chn-mep-excellent = Excellent
chn-mep-good = Bon
chn-mep-lightly-polluted = Légèrement pollué
chn-mep-moderately-polluted = Modérément pollué
chn-mep-heavily-polluted = Fortement pollué
chn-mep-severely-polluted = Gravement pollué
index-can-ec = Cote air santé (Canada, ECCC)
can-ec-low-risk = Risque faible
can-ec-moderate-risk = Risque modéré
can-ec-high-risk = Risque élevé
can-ec-very-high-risk = Risque très élevé

## Plants whose pollen is counted.
plant-alder = Aulne
plant-birch = Bouleau
plant-olive = Olivier
plant-grass = Graminées
plant-mugwort = Armoise
plant-ragweed = Ambroisie

## Pollen levels, 0 to 5.
pollen-level-none = Nul
pollen-level-very-low = Très faible
pollen-level-low = Faible
pollen-level-moderate = Moyen
pollen-level-high = Élevé
pollen-level-very-high = Très élevé

## Pollen types, for use inside a sentence.
pollen-type-tree = pollens d'arbres
pollen-type-grass = pollens de graminées
pollen-type-weed = pollens d'herbacées

## The number an air-quality alert shows, and what stands in for it.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = non disponible
aqi-above = supérieur à { $value }
aqi-at-least = au moins { $value }

## How long an episode lasts.
duration-hours = { $n ->
    [one] { $n } heure
   *[other] { $n } heures
}
duration-days = { $n ->
    [one] { $n } jour
   *[other] { $n } jours
}
duration-at-least = au moins { $duration }

## Air-quality alert default descriptions.
alert-air-worse = Dans { $hours ->
    [one] { $hours } heure
   *[other] { $hours } heures
}, la qualité de l'air devrait se dégrader ({ $aqi }).
alert-air-better = Dans { $hours ->
    [one] { $hours } heure
   *[other] { $hours } heures
}, la qualité de l'air devrait s'améliorer ({ $aqi }).

## Pollen alert default descriptions ($day: 0 today, 1 tomorrow, more; $kind; $size).
alert-pollen-rise = { $day ->
    [0] Aujourd'hui
    [1] Demain
   *[other] Dans { $day } jours
}, le niveau de { $kind ->
    [tree] pollens d'arbres
    [grass] pollens de graminées
   *[weed] pollens d'herbacées
} va { $size ->
    [1] légèrement
    [2] modérément
   *[other] fortement
} augmenter.
alert-pollen-drop = { $day ->
    [0] Aujourd'hui
    [1] Demain
   *[other] Dans { $day } jours
}, le niveau de { $kind ->
    [tree] pollens d'arbres
    [grass] pollens de graminées
   *[weed] pollens d'herbacées
} va { $size ->
    [1] légèrement
    [2] modérément
   *[other] fortement
} baisser.

## Advice when the air changes: air-{change}-{audience}.
air-worse-good-general = La qualité de l'air reste bonne pour la plupart des personnes ; inutile de modifier vos projets en extérieur.
air-worse-moderate-general = Les personnes sensibles à la pollution de l'air devraient envisager des activités extérieures plus courtes ou moins intenses.
air-worse-low-general = Limitez les efforts prolongés ou intenses en extérieur, surtout si vous êtes sensible à la pollution de l'air.
air-worse-poor-general = Évitez les activités physiques intenses en extérieur ; faites votre sport à l'intérieur et gardez les fenêtres fermées.
air-worse-extreme-general = La pollution de l'air est extrême : tout le monde doit éviter l'activité physique en extérieur, rester à l'intérieur fenêtres fermées et utiliser un purificateur d'air si l'on en a un.
air-better-good-general = Un bon moment pour les activités en plein air et pour aérer votre logement.
air-better-moderate-general = La qualité de l'air s'améliore ; la plupart des personnes peuvent reprendre leurs activités extérieures habituelles.
air-better-unhealthy-general = La qualité de l'air s'améliore mais reste mauvaise pour la santé ; continuez à limiter les efforts prolongés en extérieur.

air-worse-good-children = La qualité de l'air reste bonne ; les enfants peuvent jouer et faire du sport dehors comme d'habitude.
air-worse-moderate-children = Privilégiez pour les enfants des jeux en extérieur plus courts et plus calmes, avec davantage de pauses, surtout en cas d'asthme.
air-worse-low-children = Les enfants doivent éviter les efforts longs ou intenses en extérieur ; organisez le sport et les jeux actifs à l'intérieur.
air-worse-poor-children = Gardez les enfants à l'intérieur, fenêtres fermées ; reportez le sport et les jeux actifs en extérieur.
air-worse-extreme-children = La pollution de l'air est extrême : gardez les enfants à l'intérieur, fenêtres fermées, sans jeux ni sport dehors, et écourtez les trajets vers l'école.
air-better-good-children = Un bon moment pour que les enfants jouent et fassent du sport dehors.
air-better-moderate-children = La qualité de l'air s'améliore ; les enfants peuvent recommencer à jouer dehors, avec des pauses pour ceux qui ont de l'asthme.
air-better-unhealthy-children = La qualité de l'air s'améliore mais reste mauvaise pour la santé ; limitez les jeux des enfants dehors à des moments courts et calmes.

air-worse-good-older-adults = La qualité de l'air reste bonne ; les personnes âgées peuvent maintenir leurs projets en extérieur.
air-worse-moderate-older-adults = Les personnes âgées devraient privilégier des activités extérieures plus courtes ou plus douces, par exemple une promenade tranquille plutôt qu'une longue.
air-worse-low-older-adults = Les personnes âgées devraient éviter les efforts longs ou intenses en extérieur et être attentives à tout essoufflement ou gêne dans la poitrine.
air-worse-poor-older-adults = Les personnes âgées devraient rester à l'intérieur, fenêtres fermées, et se limiter à une activité physique légère.
air-worse-extreme-older-adults = La pollution de l'air est extrême : les personnes âgées devraient rester à l'intérieur fenêtres fermées, se reposer et consulter un médecin en cas de douleur thoracique ou d'essoufflement.
air-better-good-older-adults = Un bon moment pour que les personnes âgées se promènent dehors et aèrent leur logement.
air-better-moderate-older-adults = La qualité de l'air s'améliore ; les personnes âgées peuvent reprendre leurs activités extérieures habituelles à un rythme tranquille.
air-better-unhealthy-older-adults = La qualité de l'air s'améliore mais reste mauvaise pour la santé ; les personnes âgées devraient garder des activités extérieures courtes et légères.

air-worse-good-heart-or-lung = La qualité de l'air reste bonne ; poursuivez vos activités habituelles et suivez votre plan de traitement.
air-worse-moderate-heart-or-lung = En cas de maladie cardiaque ou respiratoire, choisissez des activités extérieures plus douces et gardez votre traitement de secours à portée de main.
air-worse-low-heart-or-lung = En cas de maladie cardiaque ou respiratoire, évitez les efforts longs ou intenses en extérieur, gardez votre inhalateur ou vos médicaments à portée de main et suivez votre plan de traitement.
air-worse-poor-heart-or-lung = En cas de maladie cardiaque ou respiratoire, restez à l'intérieur fenêtres fermées, suivez votre plan de traitement et consultez un médecin si vos symptômes s'aggravent.
air-worse-extreme-heart-or-lung = La pollution de l'air est extrême : en cas de maladie cardiaque ou respiratoire, restez à l'intérieur fenêtres fermées, prenez vos médicaments selon votre plan de traitement et consultez immédiatement un médecin si vos symptômes s'aggravent.
air-better-good-heart-or-lung = Un bon moment pour les activités en plein air et pour aérer votre logement ; gardez vos médicaments à portée de main comme d'habitude.
air-better-moderate-heart-or-lung = La qualité de l'air s'améliore ; reprenez vos activités habituelles à un rythme tranquille, avec vos médicaments à portée de main.
air-better-unhealthy-heart-or-lung = La qualité de l'air s'améliore mais reste mauvaise pour la santé ; continuez d'éviter les efforts intenses en extérieur et suivez votre plan de traitement.

air-worse-good-pregnancy = La qualité de l'air reste bonne ; promenades et activités en extérieur ne posent pas de problème pendant la grossesse.
air-worse-moderate-pregnancy = Pendant la grossesse, privilégiez des activités extérieures plus courtes ou plus douces et des itinéraires à l'écart des axes très fréquentés.
air-worse-low-pregnancy = Pendant la grossesse, limitez les efforts prolongés en extérieur et le temps passé près d'une circulation dense.
air-worse-poor-pregnancy = Pendant la grossesse, évitez les activités physiques intenses en extérieur et restez si possible à l'intérieur, fenêtres fermées.
air-worse-extreme-pregnancy = La pollution de l'air est extrême : pendant la grossesse, restez à l'intérieur fenêtres fermées, évitez les efforts et écourtez vos sorties.
air-better-good-pregnancy = Un bon moment pour une promenade en plein air et pour aérer votre logement.
air-better-moderate-pregnancy = La qualité de l'air s'améliore ; reprenez vos activités extérieures habituelles, de préférence à l'écart des axes très fréquentés.
air-better-unhealthy-pregnancy = La qualité de l'air s'améliore mais reste mauvaise pour la santé ; pendant la grossesse, limitez la durée des efforts en extérieur.

air-worse-good-athletes = La qualité de l'air reste bonne ; entraînez-vous dehors comme prévu.
air-worse-moderate-athletes = Envisagez d'alléger les séances longues ou intenses en extérieur, ou de vous entraîner à un moment de la journée où l'air est plus propre.
air-worse-low-athletes = Faites les séances intenses ou longues à l'intérieur ou aux heures où l'air est plus propre ; gardez les séances en extérieur légères.
air-worse-poor-athletes = Entraînez-vous à l'intérieur ; reportez les séances intenses en extérieur jusqu'à ce que l'air s'améliore.
air-worse-extreme-athletes = La pollution de l'air est extrême : annulez entraînements et compétitions en extérieur ; gardez les séances en intérieur légères si l'air intérieur n'est pas filtré.
air-better-good-athletes = Un bon moment pour s'entraîner en extérieur, y compris pour les séances intenses.
air-better-moderate-athletes = La qualité de l'air s'améliore ; l'entraînement normal en extérieur peut reprendre, en réservant les séances les plus dures pour un air plus propre.
air-better-unhealthy-athletes = La qualité de l'air s'améliore mais reste mauvaise pour la santé ; gardez pour l'instant les entraînements intenses à l'intérieur.

## Advice when pollen changes: pollen-{change}-{audience}.
pollen-up-low-general = Le niveau de pollens reste faible ; la plupart des personnes allergiques ne seront pas gênées.
pollen-up-moderate-general = Les personnes allergiques devraient garder leur traitement à portée de main.
pollen-up-high-general = Les personnes allergiques devraient prendre leur traitement tôt, limiter le temps passé dehors et garder les fenêtres fermées.
pollen-down-low-general = Un bon moment pour les activités en plein air, même avec une allergie aux pollens.
pollen-down-moderate-general = Le niveau de pollens baisse mais reste moyen ; les personnes allergiques doivent rester vigilantes.
pollen-down-high-general = Le niveau de pollens baisse mais reste élevé ; les personnes allergiques doivent continuer à se protéger.

pollen-up-low-children = Le niveau de pollens reste faible ; les enfants souffrant de rhume des foins peuvent jouer dehors comme d'habitude.
pollen-up-moderate-children = Gardez à portée de main le traitement antiallergique des enfants souffrant de rhume des foins ; il est utile de leur laver les mains et le visage après les jeux dehors.
pollen-up-high-children = Donnez leur traitement aux enfants souffrant de rhume des foins avant qu'ils sortent, écourtez les jeux dehors et lavez-leur ensuite les cheveux et les mains.
pollen-down-low-children = Un bon moment pour que les enfants jouent dehors, même avec un rhume des foins.
pollen-down-moderate-children = Le niveau de pollens baisse mais reste moyen ; gardez le traitement antiallergique des enfants à portée de main.
pollen-down-high-children = Le niveau de pollens baisse mais reste élevé ; les enfants souffrant de rhume des foins doivent poursuivre leur traitement et jouer dehors moins longtemps.

pollen-up-low-older-adults = Le niveau de pollens reste faible ; les personnes âgées allergiques le remarqueront à peine.
pollen-up-moderate-older-adults = Les personnes âgées allergiques aux pollens devraient garder leur traitement à portée de main ; un pharmacien peut indiquer les produits compatibles avec leurs autres médicaments.
pollen-up-high-older-adults = Les personnes âgées allergiques aux pollens devraient prendre leur traitement tôt, limiter le temps passé dehors et garder les fenêtres fermées.
pollen-down-low-older-adults = Un bon moment pour que les personnes âgées sortent, même avec une allergie aux pollens.
pollen-down-moderate-older-adults = Le niveau de pollens baisse mais reste moyen ; les personnes âgées allergiques doivent rester vigilantes.
pollen-down-high-older-adults = Le niveau de pollens baisse mais reste élevé ; les personnes âgées allergiques doivent continuer à se protéger.

pollen-up-low-heart-or-lung = Le niveau de pollens reste faible ; suivez votre plan de traitement habituel.
pollen-up-moderate-heart-or-lung = Les pollens peuvent déclencher de l'asthme : gardez votre inhalateur de secours et votre traitement antiallergique à portée de main.
pollen-up-high-heart-or-lung = Un niveau élevé de pollens peut déclencher des crises d'asthme : prenez votre traitement de fond comme prescrit, ayez votre inhalateur de secours sur vous, limitez le temps passé dehors et gardez les fenêtres fermées.
pollen-down-low-heart-or-lung = Le niveau de pollens est faible ; un bon moment pour les activités en plein air, en suivant votre plan de traitement habituel.
pollen-down-moderate-heart-or-lung = Le niveau de pollens baisse mais reste moyen ; gardez votre inhalateur de secours à portée de main.
pollen-down-high-heart-or-lung = Le niveau de pollens baisse mais reste élevé ; poursuivez votre traitement de fond et ayez votre inhalateur de secours sur vous.

pollen-up-low-pregnancy = Le niveau de pollens reste faible ; le rhume des foins ne devrait guère vous gêner.
pollen-up-moderate-pregnancy = En cas de rhume des foins pendant la grossesse, gardez à portée de main un traitement validé par votre médecin ou votre pharmacien.
pollen-up-high-pregnancy = En cas de rhume des foins pendant la grossesse, utilisez le traitement validé par votre médecin ou votre pharmacien, limitez le temps passé dehors et gardez les fenêtres fermées.
pollen-down-low-pregnancy = Un bon moment pour une promenade en plein air, même avec un rhume des foins.
pollen-down-moderate-pregnancy = Le niveau de pollens baisse mais reste moyen ; gardez à portée de main votre traitement validé contre le rhume des foins.
pollen-down-high-pregnancy = Le niveau de pollens baisse mais reste élevé ; continuez votre traitement validé contre le rhume des foins et limitez le temps passé dehors.

pollen-up-low-athletes = Le niveau de pollens reste faible ; votre entraînement en extérieur ne devrait pas être perturbé.
pollen-up-moderate-athletes = En cas de rhume des foins, prenez votre traitement avant l'entraînement en extérieur et douchez-vous après.
pollen-up-high-athletes = En cas de rhume des foins, faites les séances intenses à l'intérieur, prenez votre traitement tôt et douchez-vous après l'entraînement en extérieur.
pollen-down-low-athletes = Un bon moment pour s'entraîner en extérieur, même avec un rhume des foins.
pollen-down-moderate-athletes = Le niveau de pollens baisse mais reste moyen ; en cas de rhume des foins, gardez votre traitement à portée de main pour l'entraînement en extérieur.
pollen-down-high-athletes = Le niveau de pollens baisse mais reste élevé ; en cas de rhume des foins, gardez pour l'instant les séances intenses à l'intérieur.
