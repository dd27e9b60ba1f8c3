## Tradução portuguesa do catálogo (fonte: en.ftl).
## Os ids, as variáveis e as chaves dos seletores mantêm-se; só o texto depois de `=` é traduzido.
## Onde o português europeu e o do Brasil divergem, usa-se o europeu.

## Nome da língua, na própria língua.
language-name = Português

## Categorias do índice de pureza do ar (0 a 100, 100 = mais puro): qualidade do ar.
ci-excellent = Excelente
ci-good = Boa
ci-moderate = Moderada
ci-low = Fraca
ci-poor = Má
ci-extremely-poor = Extremamente má

## Índice Europeu de Qualidade do Ar da Agência Europeia do Ambiente (EEA): as seis classes.
eaqi-good = Boa
eaqi-fair = Razoável
eaqi-moderate = Moderada
eaqi-poor = Má
eaqi-very-poor = Muito má
eaqi-extremely-poor = Extremamente má

## Categorias do US AQI (EPA).
usa-epa-good = Boa
usa-epa-moderate = Moderada
usa-epa-unhealthy-for-sensitive-groups = Insalubre para grupos sensíveis
usa-epa-unhealthy = Insalubre
usa-epa-very-unhealthy = Muito insalubre
usa-epa-hazardous = Perigosa

## Nomes dos índices.
index-ci = Índice de pureza do ar (0 a 100; quanto mais alto, mais puro)
index-eaqi = Índice Europeu de Qualidade do Ar (EEA)
index-usa-epa = US AQI (EPA)

## Índices nacionais: nomes e categorias.
index-gbr-defra = Índice Diário de Qualidade do Ar (Reino Unido, Defra)
gbr-defra-low = Baixo
gbr-defra-moderate = Moderado
gbr-defra-high = Elevado
gbr-defra-very-high = Muito elevado
index-ind-cpcb = Índice Nacional de Qualidade do Ar (Índia, CPCB)
ind-cpcb-good = Boa
ind-cpcb-satisfactory = Satisfatória
ind-cpcb-moderate = Moderada
ind-cpcb-poor = Má
ind-cpcb-very-poor = Muito má
ind-cpcb-severe = Grave
index-chn-mep = Índice de Qualidade do Ar (China, MEE)
chn-mep-excellent = Excelente
chn-mep-good = Boa
chn-mep-lightly-polluted = Poluição leve
chn-mep-moderately-polluted = Poluição moderada
chn-mep-heavily-polluted = Poluição intensa
chn-mep-severely-polluted = Poluição grave
index-can-ec = Índice de Qualidade do Ar e Saúde (Canadá, ECCC)
can-ec-low-risk = Risco baixo
can-ec-moderate-risk = Risco moderado
can-ec-high-risk = Risco elevado
can-ec-very-high-risk = Risco muito elevado

## Plantas cujo pólen é contado, como nomes isolados.
plant-alder = Amieiro
plant-birch = Bétula
plant-olive = Oliveira
plant-grass = Gramíneas
plant-mugwort = Artemísia
plant-ragweed = Ambrósia

## Níveis de pólen, de 0 a 5.
pollen-level-none = Nenhum
pollen-level-very-low = Muito baixo
pollen-level-low = Baixo
pollen-level-moderate = Moderado
pollen-level-high = Elevado
pollen-level-very-high = Muito elevado

## Tipos de pólen, como palavra dentro de uma frase, em minúsculas.
pollen-type-tree = árvores
pollen-type-grass = gramíneas
pollen-type-weed = ervas daninhas

## O número apresentado num alerta de qualidade do ar e o que o substitui.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = indisponível
aqi-above = acima de { $value }
aqi-at-least = pelo menos { $value }

## Duração de um episódio.
duration-hours = { $n ->
    [one] { $n } hora
   *[other] { $n } horas
}
duration-days = { $n ->
    [one] { $n } dia
   *[other] { $n } dias
}
duration-at-least = pelo menos { $duration }

## Descrição predefinida de um alerta de qualidade do ar.
alert-air-worse = Dentro de { $hours ->
    [one] { $hours } hora
   *[other] { $hours } horas
}, a qualidade do ar deverá piorar ({ $aqi }).
alert-air-better = Dentro de { $hours ->
    [one] { $hours } hora
   *[other] { $hours } horas
}, a qualidade do ar deverá melhorar ({ $aqi }).

## Descrição predefinida de um alerta de pólen.
alert-pollen-rise = { $day ->
    [0] Hoje
    [1] Amanhã
   *[other] Dentro de { $day } dias
}, os níveis de { $kind ->
    [tree] pólen de árvores
    [grass] pólen de gramíneas
   *[weed] pólen de ervas daninhas
} vão aumentar { $size ->
    [1] ligeiramente
    [2] moderadamente
   *[other] drasticamente
}.
alert-pollen-drop = { $day ->
    [0] Hoje
    [1] Amanhã
   *[other] Dentro de { $day } dias
}, os níveis de { $kind ->
    [tree] pólen de árvores
    [grass] pólen de gramíneas
   *[weed] pólen de ervas daninhas
} vão diminuir { $size ->
    [1] ligeiramente
    [2] moderadamente
   *[other] drasticamente
}.

## Conselhos quando a qualidade do ar muda: air-{change}-{audience}.
air-worse-good-general = A qualidade do ar mantém-se boa para a maioria das pessoas; não é preciso alterar os planos ao ar livre.
air-worse-moderate-general = As pessoas sensíveis à poluição do ar devem considerar atividades ao ar livre mais curtas ou mais leves.
air-worse-low-general = Limite o esforço prolongado ou intenso ao ar livre, sobretudo se for sensível à poluição do ar.
air-worse-poor-general = Evite atividades extenuantes ao ar livre; faça exercício em espaços fechados e mantenha as janelas fechadas.
air-worse-extreme-general = A poluição do ar é extrema: todos devem evitar atividade física ao ar livre, ficar em casa com as janelas fechadas e usar um purificador de ar, se tiverem um.
air-better-good-general = Bom momento para atividades ao ar livre e para arejar a casa.
air-better-moderate-general = A qualidade do ar está a melhorar; a maioria das pessoas pode retomar as atividades habituais ao ar livre.
air-better-unhealthy-general = A qualidade do ar está a melhorar, mas continua prejudicial à saúde; continue a limitar os esforços prolongados ao ar livre.

air-worse-good-children = A qualidade do ar mantém-se boa; as crianças podem brincar e praticar desporto ao ar livre como habitualmente.
air-worse-moderate-children = As brincadeiras das crianças ao ar livre devem ser mais curtas e calmas, com mais pausas, sobretudo para as crianças com asma.
air-worse-low-children = As crianças devem evitar esforços longos ou intensos ao ar livre; o desporto e as brincadeiras ativas devem passar para espaços fechados.
air-worse-poor-children = Mantenha as crianças em casa com as janelas fechadas; adie o desporto e as brincadeiras ativas ao ar livre.
air-worse-extreme-children = A poluição do ar é extrema: mantenha as crianças em casa com as janelas fechadas, sem brincadeiras nem desporto ao ar livre, e mantenha curto o trajeto de e para a escola.
air-better-good-children = Bom momento para as crianças brincarem e praticarem desporto ao ar livre.
air-better-moderate-children = A qualidade do ar está a melhorar; as crianças podem voltar a brincar ao ar livre, com pausas para as que têm asma.
air-better-unhealthy-children = A qualidade do ar está a melhorar, mas continua prejudicial à saúde; as brincadeiras das crianças ao ar livre devem ser curtas e calmas.

air-worse-good-older-adults = A qualidade do ar mantém-se boa; as pessoas idosas podem manter os seus planos ao ar livre.
air-worse-moderate-older-adults = As pessoas idosas devem preferir atividades ao ar livre mais curtas ou leves, como um passeio calmo em vez de uma caminhada longa.
air-worse-low-older-adults = As pessoas idosas devem evitar esforços longos ou intensos ao ar livre e estar atentas a falta de ar ou desconforto no peito.
air-worse-poor-older-adults = As pessoas idosas devem ficar em casa com as janelas fechadas e manter a atividade física leve.
air-worse-extreme-older-adults = A poluição do ar é extrema: as pessoas idosas devem ficar em casa com as janelas fechadas, descansar e procurar ajuda médica em caso de dor no peito ou falta de ar.
air-better-good-older-adults = Bom momento para as pessoas idosas caminharem ao ar livre e arejarem a casa.
air-better-moderate-older-adults = A qualidade do ar está a melhorar; as pessoas idosas podem retomar a atividade habitual ao ar livre, a um ritmo calmo.
air-better-unhealthy-older-adults = A qualidade do ar está a melhorar, mas continua prejudicial à saúde; as pessoas idosas devem manter as atividades ao ar livre curtas e leves.

air-worse-good-heart-or-lung = A qualidade do ar mantém-se boa; mantenha a sua atividade habitual e o seu plano de tratamento.
air-worse-moderate-heart-or-lung = Se tem doença cardíaca ou pulmonar, prefira atividades ao ar livre mais leves e tenha à mão a medicação de alívio.
air-worse-low-heart-or-lung = Se tem doença cardíaca ou pulmonar, evite esforços longos ou intensos ao ar livre, tenha à mão o inalador ou a medicação e siga o seu plano de tratamento.
air-worse-poor-heart-or-lung = Se tem doença cardíaca ou pulmonar, fique em casa com as janelas fechadas, siga o seu plano de tratamento e procure aconselhamento médico se os sintomas piorarem.
air-worse-extreme-heart-or-lung = A poluição do ar é extrema: se tem doença cardíaca ou pulmonar, fique em casa com as janelas fechadas, tome a medicação conforme o seu plano de tratamento e procure ajuda médica de imediato se os sintomas piorarem.
air-better-good-heart-or-lung = Bom momento para atividades ao ar livre e para arejar a casa; tenha a medicação à mão, como habitualmente.
air-better-moderate-heart-or-lung = A qualidade do ar está a melhorar; retome a atividade habitual a um ritmo calmo, com a medicação à mão.
air-better-unhealthy-heart-or-lung = A qualidade do ar está a melhorar, mas continua prejudicial à saúde; continue a evitar esforços intensos ao ar livre e siga o seu plano de tratamento.

air-worse-good-pregnancy = A qualidade do ar mantém-se boa; durante a gravidez, pode caminhar e fazer atividades ao ar livre sem preocupação.
air-worse-moderate-pregnancy = Durante a gravidez, prefira atividades ao ar livre mais curtas ou leves e percursos afastados de vias com muito trânsito.
air-worse-low-pregnancy = Durante a gravidez, limite o esforço prolongado ao ar livre e o tempo passado perto de trânsito intenso.
air-worse-poor-pregnancy = Durante a gravidez, evite atividades extenuantes ao ar livre e, sempre que possível, fique em casa com as janelas fechadas.
air-worse-extreme-pregnancy = A poluição do ar é extrema: durante a gravidez, fique em casa com as janelas fechadas, evite esforços e saia só por pouco tempo.
air-better-good-pregnancy = Bom momento para um passeio ao ar livre e para arejar a casa.
air-better-moderate-pregnancy = A qualidade do ar está a melhorar; retome as atividades habituais ao ar livre, de preferência em percursos afastados de vias com muito trânsito.
air-better-unhealthy-pregnancy = A qualidade do ar está a melhorar, mas continua prejudicial à saúde; durante a gravidez, mantenha curtos os esforços ao ar livre.

air-worse-good-athletes = A qualidade do ar mantém-se boa; treine ao ar livre como previsto.
air-worse-moderate-athletes = Considere aliviar os treinos longos ou de alta intensidade ao ar livre, ou treinar numa hora do dia em que o ar esteja mais limpo.
air-worse-low-athletes = Passe os treinos intensos ou longos para espaços fechados ou para horas com ar mais limpo; mantenha leves os treinos ao ar livre.
air-worse-poor-athletes = Treine em espaços fechados; adie os treinos intensos ao ar livre até o ar melhorar.
air-worse-extreme-athletes = A poluição do ar é extrema: cancele treinos e competições ao ar livre; mantenha leves os treinos em espaços fechados se o ar interior não for filtrado.
air-better-good-athletes = Bom momento para treinar ao ar livre, incluindo treinos intensos.
air-better-moderate-athletes = A qualidade do ar está a melhorar; pode retomar o treino normal ao ar livre, guardando os treinos mais intensos para quando o ar estiver mais limpo.
air-better-unhealthy-athletes = A qualidade do ar está a melhorar, mas continua prejudicial à saúde; por agora, mantenha os treinos intensos em espaços fechados.

## Conselhos quando o pólen muda: pollen-{change}-{audience}.
pollen-up-low-general = Os níveis de pólen mantêm-se baixos; a maioria das pessoas com alergia não será afetada.
pollen-up-moderate-general = As pessoas com alergia ao pólen devem ter a medicação à mão.
pollen-up-high-general = As pessoas com alergia ao pólen devem tomar a medicação com antecedência, limitar o tempo ao ar livre e manter as janelas fechadas.
pollen-down-low-general = Bom momento para atividades ao ar livre, mesmo com alergia ao pólen.
pollen-down-moderate-general = O pólen está a diminuir, mas continua moderado; as pessoas com alergia devem manter-se preparadas.
pollen-down-high-general = O pólen está a diminuir, mas continua elevado; as pessoas com alergia devem manter as precauções.

pollen-up-low-children = Os níveis de pólen mantêm-se baixos; as crianças com rinite alérgica podem brincar ao ar livre como habitualmente.
pollen-up-moderate-children = Tenha à mão a medicação para a alergia das crianças com rinite alérgica; ajuda lavar-lhes as mãos e o rosto depois de brincarem ao ar livre.
pollen-up-high-children = Dê às crianças com rinite alérgica a medicação antes de saírem, encurte as brincadeiras ao ar livre e, no regresso, lave o cabelo e as mãos das crianças.
pollen-down-low-children = Bom momento para as crianças brincarem ao ar livre, mesmo com rinite alérgica.
pollen-down-moderate-children = O pólen está a diminuir, mas continua moderado; tenha à mão a medicação para a alergia das crianças.
pollen-down-high-children = O pólen está a diminuir, mas continua elevado; as crianças com rinite alérgica devem continuar a tomar a medicação e brincar ao ar livre durante menos tempo.

pollen-up-low-older-adults = Os níveis de pólen mantêm-se baixos; as pessoas idosas com alergias raramente o vão notar.
pollen-up-moderate-older-adults = As pessoas idosas com alergia ao pólen devem ter a medicação à mão; o farmacêutico pode indicar que medicamentos são compatíveis com os outros que tomam.
pollen-up-high-older-adults = As pessoas idosas com alergia ao pólen devem tomar a medicação com antecedência, limitar o tempo ao ar livre e manter as janelas fechadas.
pollen-down-low-older-adults = Bom momento para as pessoas idosas estarem ao ar livre, mesmo com alergia ao pólen.
pollen-down-moderate-older-adults = O pólen está a diminuir, mas continua moderado; as pessoas idosas com alergias devem manter-se preparadas.
pollen-down-high-older-adults = O pólen está a diminuir, mas continua elevado; as pessoas idosas com alergias devem manter as precauções.

pollen-up-low-heart-or-lung = Os níveis de pólen mantêm-se baixos; siga o seu plano de tratamento habitual.
pollen-up-moderate-heart-or-lung = O pólen pode desencadear asma: tenha à mão o inalador de alívio e a medicação para a alergia.
pollen-up-high-heart-or-lung = Níveis elevados de pólen podem desencadear crises de asma: use o inalador de manutenção conforme prescrito, leve consigo o inalador de alívio, limite o tempo ao ar livre e mantenha as janelas fechadas.
pollen-down-low-heart-or-lung = O pólen está baixo; bom momento para atividades ao ar livre, seguindo o seu plano de tratamento habitual.
pollen-down-moderate-heart-or-lung = O pólen está a diminuir, mas continua moderado; tenha à mão o inalador de alívio.
pollen-down-high-heart-or-lung = O pólen está a diminuir, mas continua elevado; continue a usar o inalador de manutenção e leve consigo o inalador de alívio.

pollen-up-low-pregnancy = Os níveis de pólen mantêm-se baixos; é pouco provável que a rinite alérgica a incomode.
pollen-up-moderate-pregnancy = Se tem rinite alérgica durante a gravidez, tenha à mão um medicamento aprovado pelo seu médico ou farmacêutico.
pollen-up-high-pregnancy = Se tem rinite alérgica durante a gravidez, use o medicamento aprovado pelo seu médico ou farmacêutico, limite o tempo ao ar livre e mantenha as janelas fechadas.
pollen-down-low-pregnancy = Bom momento para um passeio ao ar livre, mesmo com rinite alérgica.
pollen-down-moderate-pregnancy = O pólen está a diminuir, mas continua moderado; tenha à mão o medicamento aprovado para a rinite alérgica.
pollen-down-high-pregnancy = O pólen está a diminuir, mas continua elevado; continue a usar o medicamento aprovado para a rinite alérgica e limite o tempo ao ar livre.

pollen-up-low-athletes = Os níveis de pólen mantêm-se baixos; os treinos ao ar livre não deverão ser afetados.
pollen-up-moderate-athletes = Se tem rinite alérgica, tome a medicação antes de treinar ao ar livre e tome duche depois.
pollen-up-high-athletes = Se tem rinite alérgica, passe os treinos intensos para espaços fechados, tome a medicação com antecedência e tome duche depois de treinar ao ar livre.
pollen-down-low-athletes = Bom momento para treinar ao ar livre, mesmo com rinite alérgica.
pollen-down-moderate-athletes = O pólen está a diminuir, mas continua moderado; se tem rinite alérgica, tenha a medicação à mão nos treinos ao ar livre.
pollen-down-high-athletes = O pólen está a diminuir, mas continua elevado; se tem rinite alérgica, mantenha por agora os treinos intensos em espaços fechados.
