## Spanish (es), translated from en.ftl. Ids, variables and selector keys as in en.ftl.

## The language's own name.
language-name = Español

## Cleanliness index categories (0 to 100, 100 cleanest).
ci-excellent = Excelente
ci-good = Buena
ci-moderate = Regular
ci-low = Deficiente
ci-poor = Mala
ci-extremely-poor = Extremadamente mala

## European Air Quality Index (EEA) bands.
eaqi-good = Buena
eaqi-fair = Razonablemente buena
eaqi-moderate = Regular
eaqi-poor = Desfavorable
eaqi-very-poor = Muy desfavorable
eaqi-extremely-poor = Extremadamente desfavorable

## US EPA AQI categories.
usa-epa-good = Buena
usa-epa-moderate = Moderada
usa-epa-unhealthy-for-sensitive-groups = Dañina a la salud para grupos sensibles
usa-epa-unhealthy = Dañina a la salud
usa-epa-very-unhealthy = Muy dañina a la salud
usa-epa-hazardous = Peligrosa

## Index names.
index-ci = Índice de limpieza del aire (de 0 a 100; cuanto más alto, más limpio)
index-eaqi = Índice europeo de calidad del aire (EEA)
index-usa-epa = US AQI (EPA)

## National indexes and their categories.
index-gbr-defra = Índice diario de calidad del aire (Reino Unido, Defra)
gbr-defra-low = Bajo
gbr-defra-moderate = Moderado
gbr-defra-high = Alto
gbr-defra-very-high = Muy alto
index-ind-cpcb = Índice nacional de calidad del aire (India, CPCB)
ind-cpcb-good = Buena
ind-cpcb-satisfactory = Satisfactoria
ind-cpcb-moderate = Moderada
ind-cpcb-poor = Mala
ind-cpcb-very-poor = Muy mala
ind-cpcb-severe = Grave
index-chn-mep = Índice de calidad del aire (China, MEE)
chn-mep-excellent = Excelente
chn-mep-good = Buena
chn-mep-lightly-polluted = Contaminación leve
chn-mep-moderately-polluted = Contaminación moderada
chn-mep-heavily-polluted = Contaminación alta
chn-mep-severely-polluted = Contaminación grave
index-can-ec = Índice de calidad del aire y salud (Canadá, ECCC)
can-ec-low-risk = Riesgo bajo
can-ec-moderate-risk = Riesgo moderado
can-ec-high-risk = Riesgo alto
can-ec-very-high-risk = Riesgo muy alto

## Plants whose pollen is counted.
plant-alder = Aliso
plant-birch = Abedul
plant-olive = Olivo
plant-grass = Gramíneas
plant-mugwort = Artemisa
plant-ragweed = Ambrosía

## Pollen levels, 0 to 5.
pollen-level-none = Nulo
pollen-level-very-low = Muy bajo
pollen-level-low = Bajo
pollen-level-moderate = Moderado
pollen-level-high = Alto
pollen-level-very-high = Muy alto

## Pollen types, for use inside a sentence.
pollen-type-tree = polen de árboles
pollen-type-grass = polen de gramíneas
pollen-type-weed = polen de malezas

## The number an air-quality alert shows, and what stands in for it.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = no disponible
aqi-above = más de { $value }
aqi-at-least = al menos { $value }

## How long an episode lasts.
duration-hours = { $n ->
    [one] { $n } hora
   *[other] { $n } horas
}
duration-days = { $n ->
    [one] { $n } día
   *[other] { $n } días
}
duration-at-least = al menos { $duration }

## Air-quality alert default descriptions.
alert-air-worse = Dentro de { $hours ->
    [one] { $hours } hora
   *[other] { $hours } horas
}, se prevé que la calidad del aire empeore ({ $aqi }).
alert-air-better = Dentro de { $hours ->
    [one] { $hours } hora
   *[other] { $hours } horas
}, se prevé que la calidad del aire mejore ({ $aqi }).

## Pollen alert default descriptions ($day: 0 today, 1 tomorrow, more; $kind; $size).
alert-pollen-rise = { $day ->
    [0] Hoy
    [1] Mañana
   *[other] Dentro de { $day } días
}, los niveles de { $kind ->
    [tree] polen de árboles
    [grass] polen de gramíneas
   *[weed] polen de malezas
} subirán { $size ->
    [1] ligeramente
    [2] moderadamente
   *[other] considerablemente
}.
alert-pollen-drop = { $day ->
    [0] Hoy
    [1] Mañana
   *[other] Dentro de { $day } días
}, los niveles de { $kind ->
    [tree] polen de árboles
    [grass] polen de gramíneas
   *[weed] polen de malezas
} bajarán { $size ->
    [1] ligeramente
    [2] moderadamente
   *[other] considerablemente
}.

## Advice when the air changes: air-{change}-{audience}.
air-worse-good-general = La calidad del aire sigue siendo buena para la mayoría de las personas; no es necesario cambiar los planes al aire libre.
air-worse-moderate-general = Las personas sensibles a la contaminación del aire deberían plantearse actividades al aire libre más cortas o más suaves.
air-worse-low-general = Limite los esfuerzos prolongados o intensos al aire libre, sobre todo si es sensible a la contaminación del aire.
air-worse-poor-general = Evite la actividad física intensa al aire libre; haga ejercicio en interiores y mantenga las ventanas cerradas.
air-worse-extreme-general = La contaminación del aire es extrema: todas las personas deben evitar la actividad física al aire libre, permanecer en interiores con las ventanas cerradas y usar un purificador de aire si disponen de uno.
air-better-good-general = Buen momento para hacer actividades al aire libre y ventilar la vivienda.
air-better-moderate-general = La calidad del aire está mejorando; la mayoría de las personas puede retomar su actividad habitual al aire libre.
air-better-unhealthy-general = La calidad del aire está mejorando, pero sigue siendo perjudicial para la salud; siga limitando los esfuerzos prolongados al aire libre.

air-worse-good-children = La calidad del aire sigue siendo buena; los niños pueden jugar y hacer deporte al aire libre como siempre.
air-worse-moderate-children = Procure que los niños jueguen al aire libre menos tiempo y de forma más tranquila, con más descansos, sobre todo si tienen asma.
air-worse-low-children = Los niños deben evitar los esfuerzos largos o intensos al aire libre; traslade el deporte y los juegos activos a interiores.
air-worse-poor-children = Mantenga a los niños en interiores con las ventanas cerradas; aplace el deporte y los juegos activos al aire libre.
air-worse-extreme-children = La contaminación del aire es extrema: mantenga a los niños en interiores con las ventanas cerradas, sin juegos ni deporte al aire libre, y acorte los trayectos al colegio.
air-better-good-children = Buen momento para que los niños jueguen y hagan deporte al aire libre.
air-better-moderate-children = La calidad del aire está mejorando; los niños pueden volver a jugar al aire libre, con descansos para los que tienen asma.
air-better-unhealthy-children = La calidad del aire está mejorando, pero sigue siendo perjudicial para la salud; procure que los niños jueguen al aire libre poco tiempo y con calma.

air-worse-good-older-adults = La calidad del aire sigue siendo buena; las personas mayores pueden mantener sus planes al aire libre.
air-worse-moderate-older-adults = Las personas mayores deberían optar por actividades al aire libre más cortas o suaves, como un paseo tranquilo en lugar de uno largo.
air-worse-low-older-adults = Las personas mayores deben evitar los esfuerzos largos o intensos al aire libre y estar atentas a la falta de aire o a las molestias en el pecho.
air-worse-poor-older-adults = Las personas mayores deben permanecer en interiores con las ventanas cerradas y limitarse a una actividad física ligera.
air-worse-extreme-older-adults = La contaminación del aire es extrema: las personas mayores deben permanecer en interiores con las ventanas cerradas, descansar y buscar atención médica si tienen dolor en el pecho o falta de aire.
air-better-good-older-adults = Buen momento para que las personas mayores paseen al aire libre y ventilen la vivienda.
air-better-moderate-older-adults = La calidad del aire está mejorando; las personas mayores pueden retomar su actividad habitual al aire libre a un ritmo suave.
air-better-unhealthy-older-adults = La calidad del aire está mejorando, pero sigue siendo perjudicial para la salud; las personas mayores deberían mantener la actividad al aire libre breve y ligera.

air-worse-good-heart-or-lung = La calidad del aire sigue siendo buena; mantenga su actividad habitual y su plan de tratamiento.
air-worse-moderate-heart-or-lung = Si tiene una enfermedad cardíaca o pulmonar, elija actividades al aire libre más suaves y tenga a mano su medicación de rescate.
air-worse-low-heart-or-lung = Si tiene una enfermedad cardíaca o pulmonar, evite los esfuerzos largos o intensos al aire libre, tenga a mano su inhalador o su medicación y siga su plan de tratamiento.
air-worse-poor-heart-or-lung = Si tiene una enfermedad cardíaca o pulmonar, permanezca en interiores con las ventanas cerradas, siga su plan de tratamiento y consulte a su médico si los síntomas empeoran.
air-worse-extreme-heart-or-lung = La contaminación del aire es extrema: si tiene una enfermedad cardíaca o pulmonar, permanezca en interiores con las ventanas cerradas, tome la medicación según su plan de tratamiento y busque atención médica de inmediato si los síntomas empeoran.
air-better-good-heart-or-lung = Buen momento para hacer actividades al aire libre y ventilar la vivienda; tenga su medicación a mano como de costumbre.
air-better-moderate-heart-or-lung = La calidad del aire está mejorando; retome su actividad habitual a un ritmo suave, con su medicación a mano.
air-better-unhealthy-heart-or-lung = La calidad del aire está mejorando, pero sigue siendo perjudicial para la salud; continúe evitando los esfuerzos intensos al aire libre y siga su plan de tratamiento.

air-worse-good-pregnancy = La calidad del aire sigue siendo buena; pasear y hacer actividad al aire libre durante el embarazo no supone ningún problema.
air-worse-moderate-pregnancy = Durante el embarazo, opte por actividades al aire libre más cortas o suaves y por recorridos alejados de las calles con mucho tráfico.
air-worse-low-pregnancy = Durante el embarazo, limite los esfuerzos prolongados al aire libre y el tiempo cerca de zonas con mucho tráfico.
air-worse-poor-pregnancy = Durante el embarazo, evite la actividad física intensa al aire libre y, siempre que pueda, permanezca en interiores con las ventanas cerradas.
air-worse-extreme-pregnancy = La contaminación del aire es extrema: durante el embarazo, permanezca en interiores con las ventanas cerradas, evite los esfuerzos y procure que sus salidas sean breves.
air-better-good-pregnancy = Buen momento para dar un paseo al aire libre y ventilar la vivienda.
air-better-moderate-pregnancy = La calidad del aire está mejorando; retome su actividad habitual al aire libre, preferiblemente por recorridos alejados de las calles con mucho tráfico.
air-better-unhealthy-pregnancy = La calidad del aire está mejorando, pero sigue siendo perjudicial para la salud; durante el embarazo, limite la duración de los esfuerzos al aire libre.

air-worse-good-athletes = La calidad del aire sigue siendo buena; entrene al aire libre según lo previsto.
air-worse-moderate-athletes = Considere reducir las sesiones largas o de alta intensidad al aire libre, o entrenar en un momento del día con el aire más limpio.
air-worse-low-athletes = Traslade los entrenamientos duros o largos a interiores o a horas con el aire más limpio; al aire libre, entrene a ritmo suave.
air-worse-poor-athletes = Entrene en interiores; aplace las sesiones duras al aire libre hasta que mejore el aire.
air-worse-extreme-athletes = La contaminación del aire es extrema: cancele entrenamientos y competiciones al aire libre; en interiores, entrene de forma suave si el aire no está filtrado.
air-better-good-athletes = Buen momento para entrenar al aire libre, incluidas las sesiones duras.
air-better-moderate-athletes = La calidad del aire está mejorando; se puede retomar el entrenamiento normal al aire libre, dejando las sesiones más duras para cuando el aire esté más limpio.
air-better-unhealthy-athletes = La calidad del aire está mejorando, pero sigue siendo perjudicial para la salud; por ahora, mantenga los entrenamientos duros en interiores.

## Advice when pollen changes: pollen-{change}-{audience}.
pollen-up-low-general = Los niveles de polen siguen bajos; la mayoría de las personas alérgicas no notarán molestias.
pollen-up-moderate-general = Las personas alérgicas deberían tener su medicación a mano.
pollen-up-high-general = Las personas alérgicas deberían tomar su medicación con antelación, limitar el tiempo al aire libre y mantener las ventanas cerradas.
pollen-down-low-general = Buen momento para hacer actividades al aire libre, incluso con alergia al polen.
pollen-down-moderate-general = Los niveles de polen bajan, pero siguen siendo moderados; las personas alérgicas deben seguir preparadas.
pollen-down-high-general = Los niveles de polen bajan, pero siguen siendo altos; las personas alérgicas deben mantener las precauciones.

pollen-up-low-children = Los niveles de polen siguen bajos; los niños con alergia al polen pueden jugar al aire libre como siempre.
pollen-up-moderate-children = Tenga a mano la medicación antialérgica de los niños con alergia al polen; ayuda lavarles las manos y la cara después de jugar al aire libre.
pollen-up-high-children = Dé su medicación a los niños con alergia al polen antes de salir, acorte el juego al aire libre y láveles después el pelo y las manos.
pollen-down-low-children = Buen momento para que los niños jueguen al aire libre, incluso con alergia al polen.
pollen-down-moderate-children = Los niveles de polen bajan, pero siguen siendo moderados; tenga a mano la medicación antialérgica de los niños.
pollen-down-high-children = Los niveles de polen bajan, pero siguen siendo altos; los niños con alergia al polen deben seguir con su medicación y jugar al aire libre durante menos tiempo.

pollen-up-low-older-adults = Los niveles de polen siguen bajos; las personas mayores con alergia apenas lo notarán.
pollen-up-moderate-older-adults = Las personas mayores con alergia al polen deberían tener su medicación a mano; en la farmacia pueden indicarles qué remedios son compatibles con sus otros medicamentos.
pollen-up-high-older-adults = Las personas mayores con alergia al polen deberían tomar su medicación con antelación, limitar el tiempo al aire libre y mantener las ventanas cerradas.
pollen-down-low-older-adults = Buen momento para que las personas mayores salgan al aire libre, incluso con alergia al polen.
pollen-down-moderate-older-adults = Los niveles de polen bajan, pero siguen siendo moderados; las personas mayores con alergia deben seguir preparadas.
pollen-down-high-older-adults = Los niveles de polen bajan, pero siguen siendo altos; las personas mayores con alergia deben mantener las precauciones.

pollen-up-low-heart-or-lung = Los niveles de polen siguen bajos; siga su plan de tratamiento habitual.
pollen-up-moderate-heart-or-lung = El polen puede desencadenar asma: tenga a mano su inhalador de rescate y su medicación antialérgica.
pollen-up-high-heart-or-lung = Los niveles altos de polen pueden provocar crisis de asma: tome su tratamiento de mantenimiento según la pauta prescrita, lleve consigo su inhalador de rescate, limite el tiempo al aire libre y mantenga las ventanas cerradas.
pollen-down-low-heart-or-lung = Los niveles de polen son bajos; buen momento para hacer actividades al aire libre, siguiendo su plan de tratamiento habitual.
pollen-down-moderate-heart-or-lung = Los niveles de polen bajan, pero siguen siendo moderados; tenga a mano su inhalador de rescate.
pollen-down-high-heart-or-lung = Los niveles de polen bajan, pero siguen siendo altos; continúe con su tratamiento de mantenimiento y lleve consigo su inhalador de rescate.

pollen-up-low-pregnancy = Los niveles de polen siguen bajos; es poco probable que la alergia al polen le cause molestias.
pollen-up-moderate-pregnancy = Si tiene alergia al polen durante el embarazo, tenga a mano un tratamiento aprobado por su médico o farmacéutico.
pollen-up-high-pregnancy = Si tiene alergia al polen durante el embarazo, use el tratamiento aprobado por su médico o farmacéutico, limite el tiempo al aire libre y mantenga las ventanas cerradas.
pollen-down-low-pregnancy = Buen momento para dar un paseo al aire libre, incluso con alergia al polen.
pollen-down-moderate-pregnancy = Los niveles de polen bajan, pero siguen siendo moderados; tenga a mano su tratamiento aprobado para la alergia al polen.
pollen-down-high-pregnancy = Los niveles de polen bajan, pero siguen siendo altos; siga usando su tratamiento aprobado para la alergia al polen y limite el tiempo al aire libre.

pollen-up-low-athletes = Los niveles de polen siguen bajos; el entrenamiento al aire libre no debería verse afectado.
pollen-up-moderate-athletes = Si tiene alergia al polen, tome su medicación antes de entrenar al aire libre y dúchese después.
pollen-up-high-athletes = Si tiene alergia al polen, traslade las sesiones duras a interiores, tome su medicación con antelación y dúchese después de entrenar al aire libre.
pollen-down-low-athletes = Buen momento para entrenar al aire libre, incluso con alergia al polen.
pollen-down-moderate-athletes = Los niveles de polen bajan, pero siguen siendo moderados; si tiene alergia al polen, tenga a mano su medicación para entrenar al aire libre.
pollen-down-high-athletes = Los niveles de polen bajan, pero siguen siendo altos; si tiene alergia al polen, mantenga por ahora las sesiones duras en interiores.
