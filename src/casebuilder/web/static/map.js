// The map and timeline page (templates/map.html): one selection of incidents drawn twice,
// on a Leaflet map over the case file's base data and as incidents per day, week or month,
// linked both ways: a period dragged on the timeline keeps only its incidents on the map, and the map's
// view keeps only the incidents it shows in the timeline. Everything the server sends is put
// in the page as text (textContent), never as markup.
(function () {
  "use strict";

  const box = document.getElementById("map");
  const svg = document.getElementById("timeline");
  const counts = document.getElementById("counts");
  const pickedCount = document.getElementById("picked-count");
  const pickedRows = document.querySelector("#picked tbody");
  const everything = document.getElementById("everything");
  const SVG = "http://www.w3.org/2000/svg";
  const HEIGHT = 130, AXIS = 18, LISTED = 200;
  // The grades of model/terms.py GRADES, strongest first.
  const GRADE_COLOURS = {
    "confirmed": "#1b5e20", "fair": "#558b2f", "weak": "#ef6c00", "contested": "#6a1b9a",
    "discounted": "#9e9e9e",
  };

  const map = L.map(box, { preferCanvas: true, zoomSnap: 0.25, attributionControl: false,
                           worldCopyJump: false });
  let incidents = [];   // {feature, day, marker}
  let period = null;    // [first bin, last bin] kept by the timeline, or null
  let bins = [0, 0];    // the whole selection's first and last bin
  let binDays = 1;      // a bin is a day, a week or a month (30 days), as the span asks
  let allBounds = null;

  function dayOf(text) {  // days since 1970-01-01 of an ISO day, or null
    if (!text) return null;
    const [y, m, d] = text.split("-").map(Number);
    return Math.floor(Date.UTC(y, m - 1, d) / 86400000);
  }

  function binOf(i) {
    return i.day === null ? null : Math.floor(i.day / binDays);
  }

  function binLabel(n) {
    const first = new Date(n * binDays * 86400000).toISOString().slice(0, 10);
    if (binDays === 1) return first;
    const last = new Date(((n + 1) * binDays - 1) * 86400000).toISOString().slice(0, 10);
    return `${first} to ${last}`;
  }

  function mapNarrowed() {
    return allBounds !== null && !map.getBounds().contains(allBounds);
  }

  function onMap(i) {
    if (!i.marker) return !mapNarrowed();
    return map.getBounds().contains(i.marker.getLatLng());
  }

  function inPeriod(i) {
    if (period === null) return true;
    const bin = binOf(i);
    return bin !== null && bin >= period[0] && bin <= period[1];
  }

  function element(name, attributes, text) {
    const made = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attributes)) made.setAttribute(k, v);
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function drawTimeline() {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const width = svg.clientWidth || 900;
    svg.setAttribute("viewBox", `0 0 ${width} ${HEIGHT}`);
    const span = bins[1] - bins[0] + 1;
    const per = new Array(span).fill(0);
    for (const i of incidents) {
      const bin = binOf(i);
      if (bin !== null && onMap(i)) per[bin - bins[0]] += 1;
    }
    const most = Math.max(1, ...per);
    const step = width / span;
    const base = HEIGHT - AXIS;
    let lastYear = null;
    per.forEach((count, n) => {
      const bin = bins[0] + n;
      const kept = period === null || (bin >= period[0] && bin <= period[1]);
      const h = (count / most) * (base - 6);
      const bar = element("rect", { x: n * step + 0.5, y: base - h, width: Math.max(1, step - 1),
                                    height: h, class: kept ? "bar" : "bar out" });
      bar.appendChild(element("title", {}, `${binLabel(bin)}: ${count}`));
      svg.appendChild(bar);
      // the axis names each year, or each month where the span is short
      const label = binLabel(bin).slice(0, span * binDays > 400 ? 4 : 7);
      if (label !== lastYear) {
        svg.appendChild(element("text", { x: n * step + 2, y: HEIGHT - 4, class: "axis" },
                                label));
        svg.appendChild(element("line", { x1: n * step, x2: n * step, y1: base, y2: base + 4,
                                          class: "axis" }));
        lastYear = label;
      }
    });
    if (period !== null) {
      const x0 = (period[0] - bins[0]) * step, x1 = (period[1] - bins[0] + 1) * step;
      svg.appendChild(element("rect", { x: x0, y: 0, width: x1 - x0, height: base,
                                        class: "brush" }));
    }
    svg.appendChild(element("line", { x1: 0, x2: width, y1: base, y2: base, class: "axis" }));
  }

  function showMarkers() {
    for (const i of incidents) {
      if (!i.marker) continue;
      const kept = inPeriod(i);
      if (kept && !map.hasLayer(i.marker)) i.marker.addTo(map);
      if (!kept && map.hasLayer(i.marker)) map.removeLayer(i.marker);
    }
  }

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function listPicked() {
    const picked = incidents.filter((i) => inPeriod(i) && onMap(i));
    picked.sort((a, b) => String(a.feature.properties.date || "").localeCompare(
      String(b.feature.properties.date || "")));
    counts.textContent = `${picked.length} of ${incidents.length} incidents in the period and` +
      " on the map";
    pickedCount.textContent = picked.length > LISTED
      ? `The first ${LISTED} of ${picked.length}, by date:` : `${picked.length}, by date:`;
    while (pickedRows.firstChild) pickedRows.removeChild(pickedRows.firstChild);
    for (const i of picked.slice(0, LISTED)) {
      const p = i.feature.properties;
      const row = document.createElement("tr");
      cell(row, p.date || "undated");
      const place = cell(row, "");
      const link = document.createElement("a");
      link.href = "/incidents/" + encodeURIComponent(p.id);
      link.textContent = p.place || "unplaced";
      place.appendChild(link);
      cell(row, (p.categories || []).join(", "));
      cell(row, p.killed === null || p.killed === undefined ? "" : String(p.killed));
      cell(row, p.grade || "");
      cell(row, (p.status || "").replace(/_/g, " "));
      pickedRows.appendChild(row);
    }
  }

  function update() {
    showMarkers();
    drawTimeline();
    listPicked();
  }

  function popupFor(p) {
    const div = document.createElement("div");
    const link = document.createElement("a");
    link.href = "/incidents/" + encodeURIComponent(p.id);
    link.textContent = p.place || "unplaced";
    div.appendChild(link);
    const facts = document.createElement("div");
    facts.textContent = [p.date || "undated", (p.categories || []).join(", "),
                         p.killed !== null && p.killed !== undefined ? `${p.killed} killed` : "",
                         p.grade || ""].filter(Boolean).join(" · ");
    div.appendChild(facts);
    return div;
  }

  // The timeline's brush: press, drag and let go to keep a period; a click clears it.
  let pressed = null;
  function binAt(event) {
    const box = svg.getBoundingClientRect();
    const span = bins[1] - bins[0] + 1;
    const n = Math.floor(((event.clientX - box.left) / box.width) * span);
    return bins[0] + Math.min(span - 1, Math.max(0, n));
  }
  svg.addEventListener("pointerdown", (event) => {
    pressed = binAt(event);
    svg.setPointerCapture(event.pointerId);
  });
  svg.addEventListener("pointermove", (event) => {
    if (pressed === null) return;
    const here = binAt(event);
    period = [Math.min(pressed, here), Math.max(pressed, here)];
    drawTimeline();
  });
  svg.addEventListener("pointerup", (event) => {
    if (pressed === null) return;
    const here = binAt(event);
    period = here === pressed && period !== null && period[0] === period[1] && period[0] === here
      ? null : [Math.min(pressed, here), Math.max(pressed, here)];
    pressed = null;
    update();
  });
  everything.addEventListener("click", () => {
    period = null;
    if (allBounds !== null) map.fitBounds(allBounds, { padding: [20, 20] });
    update();
  });
  map.on("moveend", () => { drawTimeline(); listPicked(); });

  function json(address) {
    return fetch(address, { credentials: "same-origin" }).then((answer) => {
      if (!answer.ok) throw new Error(`${address}: ${answer.status}`);
      return answer.json();
    });
  }

  Promise.all([json(box.dataset.basemap), json(box.dataset.incidents)]).then(([base, data]) => {
    L.geoJSON(base, {
      interactive: false,
      style: (f) => f.properties.layer === "region"
        ? { color: "#9a958c", weight: 0.6, fill: false }
        : { color: "#6b665d", weight: 1, fillColor: "#f3efe6", fillOpacity: 1 },
    }).addTo(map);
    const frame = base.frame;  // west, south, east, north
    map.fitBounds([[frame[1], frame[0]], [frame[3], frame[2]]]);
    const points = [];
    for (const feature of data.features) {
      const p = feature.properties;
      let marker = null;
      if (feature.geometry) {
        const [lon, lat] = feature.geometry.coordinates;
        marker = L.circleMarker([lat, lon], {
          radius: 3 + Math.min(9, Math.sqrt(p.killed || 0)),
          color: "#222", weight: 0.6, fillOpacity: 0.8,
          fillColor: GRADE_COLOURS[p.grade] || "#c62828",
        }).bindPopup(popupFor(p));
        marker.addTo(map);
        points.push([lat, lon]);
      }
      incidents.push({ feature, day: dayOf(p.date), marker });
    }
    const days = incidents.map((i) => i.day).filter((d) => d !== null);
    const first = days.length ? days.reduce((a, b) => Math.min(a, b)) : 0;
    const last = days.length ? days.reduce((a, b) => Math.max(a, b)) : 0;
    binDays = last - first <= 180 ? 1 : last - first <= 3 * 365 ? 7 : 30;
    bins = [Math.floor(first / binDays), Math.floor(last / binDays)];
    if (points.length) {
      allBounds = L.latLngBounds(points);
      map.fitBounds(allBounds, { padding: [20, 20], maxZoom: 10 });
    }
    box.dataset.ready = String(incidents.length);
    update();
  }).catch((error) => {
    counts.textContent = `The map could not be drawn: ${error.message}`;
  });
}());
