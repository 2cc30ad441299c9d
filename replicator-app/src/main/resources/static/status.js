// The status page's script: a file, as its Content-Security-Policy runs no inline script.
"use strict";
const HOUR_MS = 3600 * 1000;
const samples = [];                      // [time ms, largest lag s] over the last hour
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get("token")) {             // a link may carry the token once; it is not kept in the URL
  sessionStorage.setItem("replicator-token", fragment.get("token"));
  window.history.replaceState(null, "", location.pathname);
}
document.getElementById("token-form").addEventListener("submit", e => {
  e.preventDefault();
  sessionStorage.setItem("replicator-token", document.getElementById("token").value);
  refresh();
});

function text(value) { return value === null || value === undefined ? "" : String(value); }
function cell(row, value, className) {
  const td = row.insertCell();
  td.textContent = text(value);
  if (className) td.className = className;
  return td;
}
function lag(seconds) {
  if (seconds < 60) return seconds + " s";
  if (seconds < 3600) return Math.round(seconds / 60) + " min";
  return (seconds / 3600).toFixed(1) + " h";
}

async function refresh() {
  const token = sessionStorage.getItem("replicator-token");
  const headers = token ? { Authorization: "Bearer " + token } : {};
  let response;
  try {
    response = await fetch("api/replications", { headers });
  } catch (e) {
    document.getElementById("updated").textContent = "The service does not answer: " + e;
    return;
  }
  document.getElementById("login").style.display = response.status === 401 ? "block" : "none";
  if (!response.ok) return;
  const replicas = await response.json();
  render(replicas);
  const now = Date.now();
  samples.push([now, replicas.reduce((m, r) => Math.max(m, r.lagSeconds || 0), 0)]);
  while (samples.length && samples[0][0] < now - HOUR_MS) samples.shift();
  chart();
  document.getElementById("updated").textContent =
    replicas.length + " replica(s), updated " + new Date(now).toLocaleTimeString();
  const groups = await fetch("api/groups", { headers });
  // snapshot ids are 64-bit: kept as text, a JavaScript number would round them
  if (groups.ok) {
    renderGroups(JSON.parse((await groups.text()).replace(/"snapshotId":(\d+)/g, '"snapshotId":"$1"')));
  }
}

function renderGroups(groups) {
  const table = document.getElementById("groups");
  table.hidden = groups.length === 0;
  const body = table.querySelector("tbody");
  body.replaceChildren();
  for (const g of groups) {
    const row = body.insertRow();
    row.dataset.group = g.name;
    cell(row, g.name);
    cell(row, g.cut === null ? "none yet" : g.cut);
    cell(row, g.cutTag === null ? "none yet" : g.cutTag).title = "VERSION AS OF this tag on every table";
    cell(row, g.cutLagSeconds === null ? "" : lag(Math.round(g.cutLagSeconds)), "num");
    cell(row, g.lossWindowSeconds == null ? "" : lag(Math.round(g.lossWindowSeconds)), "num").title =
      "what a consistent failover now (mode=now) would lose: from the cut it promotes at to now";
    cell(row, text(g.heldBackBy) + (g.reason ? ": " + g.reason : ""));
    cell(row, g.tables.map(t => t.table + " @ " + text(t.snapshotId)).join("\n"), "ids");
  }
}

function render(replicas) {
  const body = document.querySelector("#replicas tbody");
  body.replaceChildren();
  for (const r of replicas) {
    const row = body.insertRow();
    row.dataset.table = r.table;
    cell(row, r.table);
    cell(row, r.target).title = text(r.targetLocation);
    const state = cell(row, "");
    const badge = document.createElement("span");
    badge.className = "state " + r.state;
    badge.textContent = r.state;
    state.appendChild(badge);
    cell(row, lag(r.lagSeconds || 0), "num");
    cell(row, text(r.replicaMetadataFile).split("/").pop()).title = text(r.replicaMetadataFile);
    cell(row, r.lastSourceCommitAt);
    cell(row, r.commitsTotal, "num");
    const problems = cell(row, r.lastError, "error");
    if (r.writerClockNote) {             // the replica is fine, but a group's cut may not be
      const warning = document.createElement("div");
      warning.className = "warning";
      warning.textContent = "Warning: " + r.writerClockNote;
      problems.appendChild(warning);
    }
  }
}

function chart() {
  const svg = document.getElementById("chart");
  const width = svg.clientWidth || 800, height = 160, pad = 30;
  const now = Date.now();
  const top = Math.max(1, ...samples.map(p => p[1]));
  const x = t => pad + (width - 2 * pad) * (1 - (now - t) / HOUR_MS);
  const y = v => height - pad - (height - 2 * pad) * v / top;
  const points = samples.map(p => x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1)).join(" ");
  svg.innerHTML =
    '<text x="' + pad + '" y="14" font-size="12" fill="#667">largest lag over the last hour (since this page opened), top ' + lag(top) + '</text>' +
    '<line x1="' + pad + '" y1="' + (height - pad) + '" x2="' + (width - pad) + '" y2="' + (height - pad) + '" stroke="#ccd"/>' +
    '<polyline fill="none" stroke="#3b6fd8" stroke-width="2" points="' + points + '"/>';
}

refresh();
setInterval(refresh, 5000);
