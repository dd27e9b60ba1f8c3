// The dashboard's maps, drawn with the vendored Leaflet: the route playground (the heatmap,
// the routes coloured sample by sample, labels that keep clear of each other, an hour slider)
// and the point picker of the Alerts page. The pages carry their data in data attributes, since
// the Content-Security-Policy allows no inline script.
(function () {
  "use strict";
  const settings = document.getElementById("map-settings");
  if (!settings || !window.L) return;
  const tiles = settings.dataset.tiles;

  function tileUrl(time) {
    return tiles + "?time=" + encodeURIComponent(time);
  }

  // Natural Earth's land (public domain, vendored) in a pane under the tiles, so that the
  // heatmap shows where it is without any basemap, and the country borders in a pane over
  // them. Both come with the page: no request leaves the machine.
  function world(map) {
    const data = window.insightsWorld;
    if (!data || !window.topojson) return;
    map.createPane("land").style.zIndex = 150;
    map.createPane("borders").style.zIndex = 350;
    map.getPane("borders").style.pointerEvents = "none";
    L.geoJSON(topojson.feature(data, data.objects.land), {
      pane: "land",
      interactive: false,
      style: { stroke: true, color: "#7c8288", weight: 1, fillColor: "#dfe3e6", fillOpacity: 1, className: "land" },
    }).addTo(map);
    const borders = topojson.mesh(data, data.objects.countries, (a, b) => a !== b);
    L.geoJSON(borders, {
      pane: "borders",
      interactive: false,
      style: { color: "#3c434a", weight: 1, opacity: 0.7, fill: false, className: "border" },
    }).addTo(map);
    map.attributionControl.addAttribution("Land and borders: Natural Earth");
  }

  // The least population of a city labelled at `zoom`: only the largest when the whole world
  // is in view, every vendored city (a million people and more) from zoom 5 on.
  function leastPopulation(zoom) {
    if (zoom <= 2) return 10e6;
    if (zoom === 3) return 5e6;
    if (zoom === 4) return 2e6;
    return 0;
  }

  // Past this zoom a city's single point says little about where one is (the streets of the
  // basemap or the routes do): no labels.
  const CITY_MAX_ZOOM = 12;

  // Major cities (GeoNames, vendored): a dot and the name in a pane over the borders and under
  // the routes, the most populous first, each only where its label clears the labels placed
  // before it, so that they never pile up. Drawn again whenever the view changes.
  function cities(map) {
    const list = window.insightsCities;
    if (!list) return;
    map.createPane("cities").style.zIndex = 380;
    map.getPane("cities").style.pointerEvents = "none";
    const group = L.layerGroup().addTo(map);
    function draw() {
      group.clearLayers();
      const zoom = map.getZoom();
      if (zoom > CITY_MAX_ZOOM) return;
      const view = map.getBounds().pad(0.1);
      const least = leastPopulation(zoom);
      const placed = [];
      for (const [name, lat, lon, population] of list) {
        // The list runs from the most populous down.
        if (population < least) break;
        if (!view.contains([lat, lon])) continue;
        const marker = L.marker([lat, lon], {
          pane: "cities",
          icon: L.divIcon({ className: "city", html: "", iconSize: null }),
          interactive: false,
          keyboard: false,
        }).addTo(group);
        const el = marker.getElement();
        const dot = document.createElement("span");
        dot.className = "city-dot";
        const label = document.createElement("span");
        label.className = "city-name";
        label.textContent = name;
        el.append(dot, label);
        const p = map.latLngToLayerPoint([lat, lon]);
        const box = { x: p.x - 4, y: p.y - el.offsetHeight / 2, w: el.offsetWidth + 4, h: el.offsetHeight };
        if (placed.some((b) => overlaps(b, box))) {
          group.removeLayer(marker);
        } else {
          placed.push(box);
        }
      }
    }
    draw();
    map.on("zoomend moveend", draw);
    map.attributionControl.addAttribution(
      'Cities: <a href="https://www.geonames.org/">GeoNames</a>, ' +
        '<a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>'
    );
  }

  // How wide each class of road is drawn, in pixels.
  const STREET_WEIGHTS = { motorway: 5, primary: 4, secondary: 3, tertiary: 2.5, minor: 1.5 };

  // The server's streets (`--roads`), when it reads any: from city zoom on, the roads with
  // traffic around the view, fetched again when the view moves, in a pane over the heatmap and
  // under the routes. A view with too many to draw shows none.
  function streets(map) {
    const url = settings.dataset.streets;
    if (!url) return;
    const zoom = Number(settings.dataset.streetsZoom);
    const widest = Number(settings.dataset.streetsRadius);
    map.createPane("streets").style.zIndex = 360;
    map.getPane("streets").style.pointerEvents = "none";
    const group = L.layerGroup().addTo(map);
    let asked = 0;
    let credited = false;
    let pending = null;
    let waiting = null;
    // A pan or zoom asks once it settles, and a newer view cancels the older one's question:
    // each answer counts against the account's map allowance.
    function soon() {
      clearTimeout(waiting);
      waiting = setTimeout(draw, 250);
    }
    async function draw() {
      const ask = ++asked;
      if (pending) pending.abort();
      pending = window.AbortController ? new AbortController() : null;
      if (map.getZoom() < zoom) {
        group.clearLayers();
        return;
      }
      const centre = map.getCenter().wrap();
      const radius = Math.min(widest, map.distance(map.getCenter(), map.getBounds().getNorthEast()));
      const query = new URLSearchParams({ lat: centre.lat.toFixed(6), lon: centre.lng.toFixed(6), radius: Math.ceil(radius) });
      let answer;
      try {
        const response = await fetch(url + "?" + query, {
          credentials: "same-origin",
          signal: pending ? pending.signal : undefined,
        });
        if (!response.ok) return;
        answer = await response.json();
      } catch (_) {
        return;
      }
      // A later view's answer wins, and a map taken off the page draws nothing.
      if (ask !== asked || !map.getContainer().isConnected) return;
      group.clearLayers();
      if (answer.attribution && !credited) {
        map.attributionControl.addAttribution("Streets: " + answer.attribution);
        credited = true;
      }
      // One path per class: thousands of stretches draw as five paths.
      const byClass = {};
      for (const [kind, lon1, lat1, lon2, lat2] of answer.stretches || []) {
        (byClass[kind] = byClass[kind] || []).push([[lat1, lon1], [lat2, lon2]]);
      }
      for (const [kind, lines] of Object.entries(byClass)) {
        L.polyline(lines, {
          pane: "streets", interactive: false, color: "#50575e", opacity: 0.6,
          weight: STREET_WEIGHTS[kind] || 1.5, className: "street street-" + kind,
        }).addTo(group);
      }
    }
    draw();
    map.on("moveend", soon);
  }

  // Natural Earth's land and borders and the GeoNames cities always; the operator's basemap
  // when one is configured (the page's policy then allows its host); and the heatmap of the
  // cleanliness index at `time` on top of both.
  function layers(map, time) {
    world(map);
    cities(map);
    streets(map);
    if (settings.dataset.basemap) {
      L.tileLayer(settings.dataset.basemap, {
        maxZoom: 19,
        attribution: settings.dataset.basemapAttribution || "",
      }).addTo(map);
    }
    return L.tileLayer(tileUrl(time), {
      maxNativeZoom: 16,
      maxZoom: 18,
      opacity: settings.dataset.basemap ? 0.55 : 0.7,
      className: "heatmap",
      attribution: "Cleanliness index",
    }).addTo(map);
  }

  function overlaps(a, b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  }

  // Where along a route its label may go: the middle first, then outwards to both ends.
  function candidates(line) {
    const fractions = [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9, 0, 1];
    return fractions.map((f) => line[Math.min(line.length - 1, Math.round(f * (line.length - 1)))]);
  }

  // Places each route's label at the first spot along the route (and side of it) where it
  // overlaps no label placed before it; if every spot is taken, below the others. Run again
  // after every zoom, since the routes' screen distances change and the labels' do not.
  function placeLabels(map, items) {
    const placed = [];
    for (const item of items) {
      const el = item.marker.getElement();
      const w = el.offsetWidth;
      const h = el.offsetHeight;
      const offsets = [[8, -h - 4], [8, 4], [-w - 8, -h - 4], [-w - 8, 4]];
      let best = null;
      for (const latlng of candidates(item.line)) {
        const p = map.latLngToLayerPoint(latlng);
        for (const [dx, dy] of offsets) {
          const box = { x: p.x + dx, y: p.y + dy, w: w, h: h };
          if (!placed.some((b) => overlaps(b, box))) {
            best = { latlng: latlng, dx: dx, dy: dy, box: box };
            break;
          }
        }
        if (best) break;
      }
      if (!best) {
        const latlng = item.line[0];
        const p = map.latLngToLayerPoint(latlng);
        let box = { x: p.x + 8, y: p.y, w: w, h: h };
        while (placed.some((b) => overlaps(b, box))) box = { x: box.x, y: box.y + h + 2, w: w, h: h };
        best = { latlng: latlng, dx: 8, dy: box.y - p.y, box: box };
      }
      placed.push(best.box);
      item.marker.setLatLng(best.latlng);
      el.style.marginLeft = best.dx + "px";
      el.style.marginTop = best.dy + "px";
    }
  }

  // Text as a tooltip's content: route ids are whatever the request says, never markup.
  function tooltip(text) {
    const span = document.createElement("span");
    span.textContent = text;
    return span;
  }

  function playground(el) {
    const data = JSON.parse(el.dataset.routes);
    const map = L.map(el, { fadeAnimation: false });
    // The view first: Leaflet adds layers (and makes their elements) once the map has one.
    const bounds = L.latLngBounds([]);
    for (const route of data.routes) {
      for (const point of route.line) bounds.extend(point);
    }
    if (bounds.isValid()) {
      map.fitBounds(bounds, { padding: [40, 40] });
    } else {
      map.setView([52.52, 13.4], 11);
    }
    const heat = layers(map, data.time);
    const labels = [];
    for (const route of data.routes) {
      if (route.line.length === 0) continue;
      // One outline per route, under its coloured stretches: the route as a whole.
      const colour = route.outline || "#1d2327";
      const outline = L.polyline(route.line, {
        color: colour, weight: 9, opacity: 0.75, className: "route",
      }).addTo(map);
      outline.getElement().setAttribute("data-route", route.id);
      for (let k = 0; k + 1 < route.samples.length; k++) {
        L.polyline([route.samples[k], route.samples[k + 1]], {
          color: route.colours[k], weight: 5, opacity: 1, className: "route-sample", interactive: false,
        }).addTo(map);
      }
      const marker = L.marker(route.line[0], {
        icon: L.divIcon({ className: "route-label", html: "", iconSize: null }),
        interactive: false,
        keyboard: false,
      }).addTo(map);
      marker.getElement().textContent = "Route " + route.id;
      marker.getElement().style.borderColor = colour;
      labels.push({ line: route.line, marker: marker });
      // Where it starts (hollow) and ends (filled), in the route's colour.
      const ends = [[route.line[0], "#fff", "start"], [route.line[route.line.length - 1], colour, "end"]];
      for (const [at, fill, which] of ends) {
        L.circleMarker(at, {
          radius: 7, color: colour, weight: 3, fillColor: fill, fillOpacity: 1,
          className: "route-" + which,
        }).bindTooltip(tooltip("Route " + route.id + ": " + which)).addTo(map);
      }
    }
    placeLabels(map, labels);
    map.on("zoomend", () => placeLabels(map, labels));

    planByClicks(map);
    // The map, for the browser test that clicks it where Leaflet's own events go.
    el.leafletMap = map;

    const slider = document.getElementById("hour");
    const shown = document.getElementById("hour-shown");
    if (slider && shown) {
      slider.addEventListener("input", () => {
        const t = new Date(Date.parse(slider.dataset.start) + Number(slider.value) * 3600e3);
        heat.setUrl(tileUrl(t.toISOString()));
        shown.textContent = t.toISOString().slice(0, 13).replace("T", " ") + ":00 UTC";
      });
    }
  }

  // The playground's clicks on the map, as the mode chooses: a trip planned on the server's
  // streets (a first click marks where it starts, a second where it goes, and the form asks
  // the server to plan the walk or ride between them), or routes drawn point by point into the
  // request, each scored as posted.
  function planByClicks(map) {
    const form = document.getElementById("playground-form");
    const text = document.getElementById("request");
    const mode = document.getElementById("plan-mode");
    if (!form || !text) return;
    const drawing = drawer(map, text, mode);
    let origin = null;
    let sent = false;
    form.addEventListener("submit", () => { sent = true; });
    // Back to this page from the next one, the map takes clicks again.
    window.addEventListener("pageshow", (e) => { if (e.persisted) sent = false; });
    map.on("click", (e) => {
      const click = e.originalEvent;
      // A double click zooms: its second click is no point. Once sent, the page is on its way.
      if (sent || (click && click.detail > 1)) return;
      if (drawing.active()) {
        drawing.add(e.latlng);
        return;
      }
      // A click on a drawn route looks at it.
      const on = click && click.target && click.target.closest;
      if (on && click.target.closest(".route, .route-sample, .route-start, .route-end, .route-label")) return;
      const at = [Number(e.latlng.wrap().lng.toFixed(5)), Number(e.latlng.lat.toFixed(5))];
      if (!origin) {
        origin = at;
        L.circleMarker(e.latlng, {
          radius: 7, color: "#1d2327", weight: 3, fillColor: "#fff", fillOpacity: 1,
          className: "plan-origin",
        }).bindTooltip(tooltip("Start: now click where you go")).addTo(map).openTooltip();
        return;
      }
      text.value = JSON.stringify({
        origin: origin,
        destination: at,
        travelMode: mode ? mode.value : "walk",
        routesSort: "desc",
        durationUnits: "m",
        lengthUnits: "m",
      }, null, 2);
      sent = true;
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
  }

  // A walker's pace, as the server plans walks (the page says it): drawn routes take as long as
  // walking them would.
  const WALK_M_PER_S = Number(settings.dataset.walkMPerS) || 1.3;
  // Drawn routes' colours, told apart from each other and from the heatmap's ramp.
  const DRAWN_COLOURS = ["#1d2327", "#6a1b9a", "#0d47a1", "#00695c", "#bf360c"];

  // Routes drawn by clicks: each click adds a point to the route being drawn ("Start another
  // route" begins the next one), and the request's text is rewritten to post them all.
  function drawer(map, text, mode) {
    const next = document.getElementById("draw-next");
    const clear = document.getElementById("draw-clear");
    const layer = L.layerGroup().addTo(map);
    let routes = [[]];
    let before = null;
    const active = () => !!mode && mode.value === "draw";
    function show() {
      for (const button of [next, clear]) if (button) button.hidden = !active();
    }
    function render() {
      layer.clearLayers();
      routes.forEach((line, i) => {
        if (line.length === 0) return;
        const colour = DRAWN_COLOURS[i % DRAWN_COLOURS.length];
        L.polyline(line, { color: colour, weight: 4, dashArray: "6 4", className: "drawn-route", interactive: false }).addTo(layer);
        L.circleMarker(line[0], { radius: 6, color: colour, weight: 3, fillColor: "#fff", fillOpacity: 1, className: "drawn-start", interactive: false }).addTo(layer);
        if (line.length > 1) {
          L.circleMarker(line[line.length - 1], { radius: 6, color: colour, weight: 3, fillColor: colour, fillOpacity: 1, className: "drawn-end", interactive: false }).addTo(layer);
        }
      });
      const posted = routes.filter((line) => line.length >= 2).map((line, i) => {
        let metres = 0;
        for (let k = 1; k < line.length; k++) metres += map.distance(line[k - 1], line[k]);
        return {
          id: String(i + 1),
          routeDuration: Math.max(1, Math.round(metres / WALK_M_PER_S)),
          polyline: line.map((p) => [Number(p.wrap().lng.toFixed(5)), Number(p.lat.toFixed(5))]),
        };
      });
      if (posted.length > 0) {
        text.value = JSON.stringify({ routesSort: "desc", durationUnits: "s", routes: posted }, null, 2);
      }
    }
    if (mode) mode.addEventListener("change", show);
    if (next) next.addEventListener("click", () => {
      if (routes[routes.length - 1].length > 0) routes.push([]);
    });
    // Cleared, the request is what it was before the drawing began.
    if (clear) clear.addEventListener("click", () => {
      routes = [[]];
      render();
      if (before !== null) text.value = before;
      before = null;
    });
    show();
    return {
      active: active,
      add(latlng) {
        if (before === null) before = text.value;
        routes[routes.length - 1].push(latlng);
        render();
      },
    };
  }

  // The place picker on the page now: a rule form answered in place keeps it, and its place's
  // forecast is fetched again, since the alerts it draws may have changed.
  let current = null;
  document.addEventListener("dashboard:kept", () => {
    if (!current || !document.body.contains(current.form)) return;
    const lat = document.getElementById("forecast-lat");
    const lon = document.getElementById("forecast-lon");
    if (lat && lon && lat.value && lon.value) showPlace(current.form, current.map);
  });

  // The Alerts page: click the map to pick the place whose forecast is drawn.
  function picker(el) {
    const lat = document.getElementById("forecast-lat");
    const lon = document.getElementById("forecast-lon");
    const form = document.getElementById("forecast-form");
    const map = L.map(el, { fadeAnimation: false });
    current = { form: form, map: map };
    const here = [Number(lat.value) || 52.52, Number(lon.value) || 13.4];
    map.setView(here, 10);
    layers(map, el.dataset.time);
    if (lat.value && lon.value) {
      L.circleMarker(here, { radius: 7, color: "#1d2327", weight: 3, fillOpacity: 0, className: "picked" }).addTo(map);
    }
    let pending = false;
    map.on("click", (e) => {
      // One place at a time: a double click (a zoom) must not race two answers.
      if (pending) return;
      pending = true;
      lat.value = e.latlng.lat.toFixed(5);
      lon.value = e.latlng.wrap().lng.toFixed(5);
      showPlace(form, map);
    });
  }

  // The chosen place's forecast, fetched as the form would load it, in place of the section:
  // the page stays where the reader is, and the address names the place for a reload or a
  // link. Without fetch (or when it fails) the form is sent as it is.
  async function showPlace(form, map) {
    const url = form.action + "?" + new URLSearchParams(new FormData(form)).toString();
    const section = document.getElementById("place-forecast");
    try {
      const answer = await fetch(url, { credentials: "same-origin" });
      if (!answer.ok && answer.status !== 429) throw new Error(String(answer.status));
      const page = new DOMParser().parseFromString(await answer.text(), "text/html");
      const fresh = page.getElementById("place-forecast");
      if (!section || !fresh) throw new Error("no forecast section");
      map.remove();
      section.replaceWith(document.adoptNode(fresh));
      history.replaceState(null, "", url);
      const pick = document.getElementById("forecast-map");
      if (pick) picker(pick);
    } catch (_) {
      // The form in the page now, which may be the new section's.
      const current = document.getElementById("forecast-form") || form;
      current.submit();
    }
  }

  const routes = document.getElementById("playground-map");
  if (routes) playground(routes);
  const pick = document.getElementById("forecast-map");
  if (pick) picker(pick);
})();
