## Polskie tłumaczenie katalogu (źródło: en.ftl).
## Identyfikatory, zmienne i klucze selektorów pozostają bez zmian; tłumaczony jest tylko tekst po `=`.
## Kategorie liczby mnogiej: one, few, many, other (other: ułamki).

## Nazwa języka w tym języku.
language-name = Polski

## Kategorie indeksu czystości powietrza (0–100, 100 = najczystsze): jakość powietrza.
ci-excellent = Doskonała
ci-good = Dobra
ci-moderate = Umiarkowana
ci-low = Słaba
ci-poor = Zła
ci-extremely-poor = Skrajnie zła

## Europejski indeks jakości powietrza Europejskiej Agencji Środowiska (EEA): sześć poziomów.
eaqi-good = Dobry
eaqi-fair = Zadowalający
eaqi-moderate = Umiarkowany
eaqi-poor = Zły
eaqi-very-poor = Bardzo zły
eaqi-extremely-poor = Skrajnie zły

## Kategorie US AQI (EPA).
usa-epa-good = Dobra
usa-epa-moderate = Umiarkowana
usa-epa-unhealthy-for-sensitive-groups = Niezdrowa dla grup wrażliwych
usa-epa-unhealthy = Niezdrowa
usa-epa-very-unhealthy = Bardzo niezdrowa
usa-epa-hazardous = Niebezpieczna

## Nazwy indeksów.
index-ci = Indeks czystości powietrza (0–100, im wyższy, tym czystsze powietrze)
index-eaqi = Europejski indeks jakości powietrza (EEA)
index-usa-epa = US AQI (EPA)

## Indeksy krajowe: nazwy i kategorie.
index-gbr-defra = Dobowy indeks jakości powietrza (Wielka Brytania, Defra)
gbr-defra-low = Niski
gbr-defra-moderate = Umiarkowany
gbr-defra-high = Wysoki
gbr-defra-very-high = Bardzo wysoki
index-ind-cpcb = Krajowy indeks jakości powietrza (Indie, CPCB)
ind-cpcb-good = Dobra
ind-cpcb-satisfactory = Zadowalająca
ind-cpcb-moderate = Umiarkowana
ind-cpcb-poor = Zła
ind-cpcb-very-poor = Bardzo zła
ind-cpcb-severe = Groźna
index-chn-mep = Indeks jakości powietrza (Chiny, MEE)
chn-mep-excellent = Doskonała
chn-mep-good = Dobra
chn-mep-lightly-polluted = Lekkie zanieczyszczenie
chn-mep-moderately-polluted = Umiarkowane zanieczyszczenie
chn-mep-heavily-polluted = Silne zanieczyszczenie
chn-mep-severely-polluted = Skrajne zanieczyszczenie
index-can-ec = Zdrowotny indeks jakości powietrza (Kanada, ECCC)
can-ec-low-risk = Niskie ryzyko
can-ec-moderate-risk = Umiarkowane ryzyko
can-ec-high-risk = Wysokie ryzyko
can-ec-very-high-risk = Bardzo wysokie ryzyko

## Rośliny, których pyłek jest liczony, jako samodzielne nazwy.
plant-alder = Olcha
plant-birch = Brzoza
plant-olive = Oliwka
plant-grass = Trawy
plant-mugwort = Bylica
plant-ragweed = Ambrozja

## Poziomy stężenia pyłku, 0–5.
pollen-level-none = Brak
pollen-level-very-low = Bardzo niskie
pollen-level-low = Niskie
pollen-level-moderate = Umiarkowane
pollen-level-high = Wysokie
pollen-level-very-high = Bardzo wysokie

## Rodzaje pyłku, jako słowo w zdaniu, małą literą.
pollen-type-tree = drzewa
pollen-type-grass = trawy
pollen-type-weed = chwasty

## Liczba w alercie jakości powietrza i to, co ją zastępuje.
aqi-shown-ci = { $number } AQI
aqi-shown-us = US AQI { $number }
aqi-not-available = brak danych
aqi-above = powyżej { $value }
aqi-at-least = co najmniej { $value }

## Czas trwania epizodu.
duration-hours = { $n ->
    [one] { $n } godzina
    [few] { $n } godziny
    [many] { $n } godzin
   *[other] { $n } godziny
}
duration-days = { $n ->
    [one] { $n } dzień
    [few] { $n } dni
    [many] { $n } dni
   *[other] { $n } dnia
}
duration-at-least = co najmniej { $duration }

## Domyślny opis alertu jakości powietrza.
alert-air-worse = Za { $hours ->
    [one] { $hours } godzinę
    [few] { $hours } godziny
    [many] { $hours } godzin
   *[other] { $hours } godziny
} jakość powietrza ma się pogorszyć ({ $aqi }).
alert-air-better = Za { $hours ->
    [one] { $hours } godzinę
    [few] { $hours } godziny
    [many] { $hours } godzin
   *[other] { $hours } godziny
} jakość powietrza ma się poprawić ({ $aqi }).

## Domyślny opis alertu pyłkowego.
alert-pollen-rise = { $day ->
    [0] Dziś
    [1] Jutro
   *[other] Za { $day } dni
} stężenie { $kind ->
    [tree] pyłku drzew
    [grass] pyłku traw
   *[weed] pyłku chwastów
} { $size ->
    [1] nieznacznie
    [2] umiarkowanie
   *[other] gwałtownie
} wzrośnie.
alert-pollen-drop = { $day ->
    [0] Dziś
    [1] Jutro
   *[other] Za { $day } dni
} stężenie { $kind ->
    [tree] pyłku drzew
    [grass] pyłku traw
   *[weed] pyłku chwastów
} { $size ->
    [1] nieznacznie
    [2] umiarkowanie
   *[other] gwałtownie
} spadnie.

## Zalecenia przy zmianie jakości powietrza: air-{change}-{audience}.
air-worse-good-general = Jakość powietrza pozostaje dobra dla większości osób; nie trzeba zmieniać planów na zewnątrz.
air-worse-moderate-general = Osoby wrażliwe na zanieczyszczenie powietrza powinny rozważyć krótszą lub lżejszą aktywność na zewnątrz.
air-worse-low-general = Należy ograniczyć długotrwały lub intensywny wysiłek na zewnątrz, zwłaszcza w przypadku wrażliwości na zanieczyszczenie powietrza.
air-worse-poor-general = Należy unikać forsownego wysiłku na zewnątrz; lepiej ćwiczyć w pomieszczeniach i nie otwierać okien.
air-worse-extreme-general = Zanieczyszczenie powietrza jest skrajne: wszyscy powinni unikać aktywności fizycznej na zewnątrz, pozostać w domu przy zamkniętych oknach i włączyć oczyszczacz powietrza, jeśli go mają.
air-better-good-general = Dobry moment na aktywność na świeżym powietrzu i wietrzenie mieszkania.
air-better-moderate-general = Jakość powietrza się poprawia; większość osób może wrócić do zwykłej aktywności na zewnątrz.
air-better-unhealthy-general = Jakość powietrza się poprawia, ale nadal jest niezdrowa; wciąż należy ograniczać długotrwały wysiłek na zewnątrz.

air-worse-good-children = Jakość powietrza pozostaje dobra; dzieci mogą jak zwykle bawić się i uprawiać sport na zewnątrz.
air-worse-moderate-children = Zabawy dzieci na zewnątrz powinny być krótsze i spokojniejsze, z częstszymi przerwami, zwłaszcza w przypadku dzieci z astmą.
air-worse-low-children = Dzieci powinny unikać długiego lub intensywnego wysiłku na zewnątrz; sport i aktywne zabawy lepiej przenieść do pomieszczeń.
air-worse-poor-children = Dzieci powinny zostać w domu przy zamkniętych oknach; sport i aktywne zabawy na zewnątrz należy odłożyć.
air-worse-extreme-children = Zanieczyszczenie powietrza jest skrajne: dzieci powinny zostać w domu przy zamkniętych oknach, bez zabaw i sportu na zewnątrz, a droga do szkoły i z powrotem powinna być jak najkrótsza.
air-better-good-children = Dobry moment na zabawy i sport dzieci na świeżym powietrzu.
air-better-moderate-children = Jakość powietrza się poprawia; dzieci mogą wrócić do zabaw na zewnątrz, a dzieci z astmą – z przerwami.
air-better-unhealthy-children = Jakość powietrza się poprawia, ale nadal jest niezdrowa; zabawy dzieci na zewnątrz powinny być krótkie i spokojne.

air-worse-good-older-adults = Jakość powietrza pozostaje dobra; osoby starsze mogą realizować swoje plany na zewnątrz.
air-worse-moderate-older-adults = Osoby starsze powinny wybierać krótszą lub lżejszą aktywność na zewnątrz, np. krótki, spokojny spacer zamiast długiego.
air-worse-low-older-adults = Osoby starsze powinny unikać długiego lub intensywnego wysiłku na zewnątrz i zwracać uwagę na duszność lub dolegliwości w klatce piersiowej.
air-worse-poor-older-adults = Osoby starsze powinny pozostać w domu przy zamkniętych oknach i ograniczyć się do lekkiej aktywności fizycznej.
air-worse-extreme-older-adults = Zanieczyszczenie powietrza jest skrajne: osoby starsze powinny pozostać w domu przy zamkniętych oknach, odpoczywać, a w razie bólu w klatce piersiowej lub duszności szukać pomocy medycznej.
air-better-good-older-adults = Dobry moment dla osób starszych na spacer i wietrzenie mieszkania.
air-better-moderate-older-adults = Jakość powietrza się poprawia; osoby starsze mogą w spokojnym tempie wrócić do zwykłej aktywności na zewnątrz.
air-better-unhealthy-older-adults = Jakość powietrza się poprawia, ale nadal jest niezdrowa; aktywność osób starszych na zewnątrz powinna być krótka i lekka.

air-worse-good-heart-or-lung = Jakość powietrza pozostaje dobra; można zachować zwykłą aktywność i plan leczenia.
air-worse-moderate-heart-or-lung = Osoby z chorobami serca lub płuc powinny wybierać lżejszą aktywność na zewnątrz i mieć pod ręką leki doraźne.
air-worse-low-heart-or-lung = Osoby z chorobami serca lub płuc powinny unikać długiego lub intensywnego wysiłku na zewnątrz, mieć pod ręką inhalator lub leki i przestrzegać planu leczenia.
air-worse-poor-heart-or-lung = Osoby z chorobami serca lub płuc powinny pozostać w domu przy zamkniętych oknach, przestrzegać planu leczenia i skontaktować się z lekarzem, jeśli objawy się nasilą.
air-worse-extreme-heart-or-lung = Zanieczyszczenie powietrza jest skrajne: osoby z chorobami serca lub płuc powinny pozostać w domu przy zamkniętych oknach, przyjmować leki zgodnie z planem leczenia i natychmiast szukać pomocy medycznej, jeśli objawy się nasilą.
air-better-good-heart-or-lung = Dobry moment na aktywność na zewnątrz i wietrzenie mieszkania; należy jak zwykle mieć leki pod ręką.
air-better-moderate-heart-or-lung = Jakość powietrza się poprawia; można w spokojnym tempie wrócić do zwykłej aktywności, mając leki pod ręką.
air-better-unhealthy-heart-or-lung = Jakość powietrza się poprawia, ale nadal jest niezdrowa; wciąż należy unikać intensywnego wysiłku na zewnątrz i przestrzegać planu leczenia.

air-worse-good-pregnancy = Jakość powietrza pozostaje dobra; spacery i aktywność na zewnątrz w ciąży nie stanowią problemu.
air-worse-moderate-pregnancy = W ciąży warto wybierać krótszą lub lżejszą aktywność na zewnątrz oraz trasy z dala od ruchliwych ulic.
air-worse-low-pregnancy = W ciąży należy ograniczyć długotrwały wysiłek na zewnątrz i przebywanie w pobliżu dużego ruchu ulicznego.
air-worse-poor-pregnancy = W ciąży należy unikać forsownego wysiłku na zewnątrz i w miarę możliwości pozostać w domu przy zamkniętych oknach.
air-worse-extreme-pregnancy = Zanieczyszczenie powietrza jest skrajne: w ciąży należy pozostać w domu przy zamkniętych oknach, unikać wysiłku i wychodzić na zewnątrz tylko na krótko.
air-better-good-pregnancy = Dobry moment na spacer i wietrzenie mieszkania.
air-better-moderate-pregnancy = Jakość powietrza się poprawia; można wrócić do zwykłej aktywności na zewnątrz, wybierając trasy z dala od ruchliwych ulic.
air-better-unhealthy-pregnancy = Jakość powietrza się poprawia, ale nadal jest niezdrowa; w ciąży wysiłek na zewnątrz powinien być krótki.

air-worse-good-athletes = Jakość powietrza pozostaje dobra; można trenować na zewnątrz zgodnie z planem.
air-worse-moderate-athletes = Warto złagodzić długie lub intensywne treningi na zewnątrz albo trenować o porze dnia, gdy powietrze jest czystsze.
air-worse-low-athletes = Ciężkie lub długie treningi lepiej przenieść do pomieszczeń lub na godziny z czystszym powietrzem; treningi na zewnątrz powinny być lekkie.
air-worse-poor-athletes = Lepiej trenować w pomieszczeniach; ciężkie treningi na zewnątrz należy odłożyć do czasu poprawy jakości powietrza.
air-worse-extreme-athletes = Zanieczyszczenie powietrza jest skrajne: należy odwołać treningi i zawody na zewnątrz; jeśli powietrze w pomieszczeniu nie jest filtrowane, treningi w środku powinny być lekkie.
air-better-good-athletes = Dobry moment na treningi na zewnątrz, także te najcięższe.
air-better-moderate-athletes = Jakość powietrza się poprawia; można wrócić do zwykłych treningów na zewnątrz, a najcięższe zostawić na czas, gdy powietrze będzie czystsze.
air-better-unhealthy-athletes = Jakość powietrza się poprawia, ale nadal jest niezdrowa; ciężkie treningi lepiej na razie prowadzić w pomieszczeniach.

## Zalecenia przy zmianie stężenia pyłku: pollen-{change}-{audience}.
pollen-up-low-general = Stężenie pyłku pozostaje niskie; większość alergików nie odczuje objawów.
pollen-up-moderate-general = Alergicy powinni mieć leki pod ręką.
pollen-up-high-general = Alergicy powinni z wyprzedzeniem przyjąć leki, ograniczyć przebywanie na zewnątrz i nie otwierać okien.
pollen-down-low-general = Dobry moment na aktywność na świeżym powietrzu, nawet przy alergii na pyłki.
pollen-down-moderate-general = Stężenie pyłku spada, ale nadal jest umiarkowane; alergicy powinni być przygotowani.
pollen-down-high-general = Stężenie pyłku spada, ale nadal jest wysokie; alergicy powinni dalej zachowywać środki ostrożności.

pollen-up-low-children = Stężenie pyłku pozostaje niskie; dzieci z katarem siennym mogą jak zwykle bawić się na zewnątrz.
pollen-up-moderate-children = Leki przeciwalergiczne dzieci z katarem siennym warto mieć pod ręką; pomaga mycie rąk i twarzy po zabawie na zewnątrz.
pollen-up-high-children = Dzieciom z katarem siennym należy podać leki przed wyjściem, skrócić zabawy na zewnątrz, a po powrocie umyć im włosy i ręce.
pollen-down-low-children = Dobry moment na zabawy dzieci na świeżym powietrzu, nawet przy katarze siennym.
pollen-down-moderate-children = Stężenie pyłku spada, ale nadal jest umiarkowane; leki przeciwalergiczne dzieci warto mieć pod ręką.
pollen-down-high-children = Stężenie pyłku spada, ale nadal jest wysokie; dzieci z katarem siennym powinny dalej przyjmować leki i krócej bawić się na zewnątrz.

pollen-up-low-older-adults = Stężenie pyłku pozostaje niskie; osoby starsze z alergią raczej go nie odczują.
pollen-up-moderate-older-adults = Osoby starsze z alergią na pyłki powinny mieć leki pod ręką; farmaceuta doradzi, które preparaty można łączyć z innymi przyjmowanymi lekami.
pollen-up-high-older-adults = Osoby starsze z alergią na pyłki powinny z wyprzedzeniem przyjąć leki, ograniczyć przebywanie na zewnątrz i nie otwierać okien.
pollen-down-low-older-adults = Dobry moment dla osób starszych na przebywanie na świeżym powietrzu, nawet przy alergii na pyłki.
pollen-down-moderate-older-adults = Stężenie pyłku spada, ale nadal jest umiarkowane; osoby starsze z alergią powinny być przygotowane.
pollen-down-high-older-adults = Stężenie pyłku spada, ale nadal jest wysokie; osoby starsze z alergią powinny dalej zachowywać środki ostrożności.

pollen-up-low-heart-or-lung = Stężenie pyłku pozostaje niskie; wystarczy przestrzegać zwykłego planu leczenia.
pollen-up-moderate-heart-or-lung = Pyłki mogą wywołać objawy astmy: należy mieć pod ręką inhalator z lekiem doraźnym i leki przeciwalergiczne.
pollen-up-high-heart-or-lung = Wysokie stężenie pyłku może wywołać napad astmy: należy przyjmować lek kontrolujący zgodnie z zaleceniem lekarza, mieć przy sobie lek doraźny, ograniczyć przebywanie na zewnątrz i nie otwierać okien.
pollen-down-low-heart-or-lung = Stężenie pyłku jest niskie; to dobry moment na aktywność na zewnątrz zgodnie ze zwykłym planem leczenia.
pollen-down-moderate-heart-or-lung = Stężenie pyłku spada, ale nadal jest umiarkowane; należy mieć pod ręką inhalator z lekiem doraźnym.
pollen-down-high-heart-or-lung = Stężenie pyłku spada, ale nadal jest wysokie; należy dalej przyjmować lek kontrolujący i mieć przy sobie lek doraźny.

pollen-up-low-pregnancy = Stężenie pyłku pozostaje niskie; katar sienny raczej nie będzie dokuczał.
pollen-up-moderate-pregnancy = Przy katarze siennym w ciąży warto mieć pod ręką lek uzgodniony z lekarzem lub farmaceutą.
pollen-up-high-pregnancy = Przy katarze siennym w ciąży należy stosować lek uzgodniony z lekarzem lub farmaceutą, ograniczyć przebywanie na zewnątrz i nie otwierać okien.
pollen-down-low-pregnancy = Dobry moment na spacer, nawet przy katarze siennym.
pollen-down-moderate-pregnancy = Stężenie pyłku spada, ale nadal jest umiarkowane; uzgodniony lek na katar sienny warto mieć pod ręką.
pollen-down-high-pregnancy = Stężenie pyłku spada, ale nadal jest wysokie; należy dalej stosować uzgodniony lek na katar sienny i ograniczać przebywanie na zewnątrz.

pollen-up-low-athletes = Stężenie pyłku pozostaje niskie; nie powinno utrudniać treningów na zewnątrz.
pollen-up-moderate-athletes = Przy katarze siennym warto przyjąć leki przed treningiem na zewnątrz, a po nim wziąć prysznic.
pollen-up-high-athletes = Przy katarze siennym ciężkie treningi lepiej przenieść do pomieszczeń, z wyprzedzeniem przyjąć leki i wziąć prysznic po treningu na zewnątrz.
pollen-down-low-athletes = Dobry moment na trening na zewnątrz, nawet przy katarze siennym.
pollen-down-moderate-athletes = Stężenie pyłku spada, ale nadal jest umiarkowane; przy katarze siennym warto mieć leki pod ręką podczas treningów na zewnątrz.
pollen-down-high-athletes = Stężenie pyłku spada, ale nadal jest wysokie; przy katarze siennym ciężkie treningi lepiej na razie prowadzić w pomieszczeniach.
