// The live Gantt: one row per lane (witness, synthesis, each device's copy / NTT / MSM, finalize),
// a rectangle per span, coloured by job so one proof can be followed across lanes and idle gaps
// show as blank. Plain SVG: each rectangle names its job and phase (data-job, data-phase, a title).
(function () {
  'use strict';
  var dash = (window.cuzkDash = window.cuzkDash || {});
  var NS = 'http://www.w3.org/2000/svg';
  var ROW = 22, LABEL = 110, AXIS = 18;
  var HUES = 12;

  function el(name, attrs) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }

  function hue(job) {
    var h = 0;
    for (var i = 0; i < job.length; i++) h = (h * 31 + job.charCodeAt(i)) >>> 0;
    return (h % HUES) * (360 / HUES);
  }

  dash.renderGantt = function (g) {
    var box = document.getElementById('gantt');
    var width = Math.max(600, box.clientWidth || 900);
    var plotW = width - LABEL - 8;
    var svg = el('svg', { width: width, height: g.lanes.length * ROW + AXIS, role: 'img', 'aria-label': 'timeline of recent proofs' });
    var x = function (t) { return LABEL + ((t - g.from) / (g.to - g.from)) * plotW; };
    g.lanes.forEach(function (lane, i) {
      var label = el('text', { x: 4, y: i * ROW + 15 });
      label.textContent = lane;
      svg.appendChild(label);
      svg.appendChild(el('line', { x1: LABEL, x2: width - 8, y1: (i + 1) * ROW, y2: (i + 1) * ROW, stroke: '#eee' }));
    });
    g.spans.forEach(function (s) {
      var row = g.lanes.indexOf(s.lane);
      var x0 = Math.max(LABEL, x(s.start));
      var r = el('rect', {
        x: x0.toFixed(1), y: row * ROW + 3, height: ROW - 6, width: Math.max(1, x(s.end) - x0).toFixed(1),
        fill: 'hsl(' + hue(s.job) + ',60%,55%)', 'data-job': s.job, 'data-phase': s.phase, 'data-lane': s.lane,
      });
      var title = el('title', {});
      title.textContent = s.phase + ' · job ' + s.job + ' · ' + (s.end - s.start).toFixed(1) + ' ms';
      r.appendChild(title);
      svg.appendChild(r);
    });
    for (var sec = Math.ceil(g.from / 5000) * 5000; sec <= g.to; sec += 5000) {
      var tick = el('text', { x: x(sec).toFixed(1), y: g.lanes.length * ROW + 13, 'text-anchor': 'middle' });
      tick.textContent = '-' + Math.round((g.to - sec) / 1000) + ' s';
      svg.appendChild(tick);
    }
    box.replaceChildren(svg);
  };
})();
