// The time series (uPlot, vendor/uplot): each frame carries the last minute in 1 s bins; the page
// keeps HISTORY_S seconds of them by bin time (later frames overwrite a bin: spans land when they end).
(function () {
  'use strict';
  var dash = (window.cuzkDash = window.cuzkDash || {});
  var HISTORY_S = 300;
  var COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

  function History(elId, unit, range) {
    this.el = document.getElementById(elId);
    this.unit = unit;
    this.range = range;
    this.bins = new Map(); // t (s) -> { lane: value }
    this.lanes = [];
    this.plot = null;
  }

  History.prototype.merge = function (t, rows, key) {
    var self = this;
    rows.forEach(function (r) {
      if (self.lanes.indexOf(r.lane) < 0) self.lanes.push(r.lane);
      r[key].forEach(function (v, k) {
        var at = t[k] / 1000;
        var bin = self.bins.get(at) || {};
        bin[r.lane] = v;
        self.bins.set(at, bin);
      });
    });
    var newest = t.length ? t[t.length - 1] / 1000 : 0;
    self.bins.forEach(function (_, at) { if (at < newest - HISTORY_S) self.bins.delete(at); });
    this.draw();
  };

  History.prototype.draw = function () {
    var self = this;
    var xs = Array.from(this.bins.keys()).sort(function (a, b) { return a - b; });
    var data = [xs].concat(this.lanes.map(function (lane) {
      return xs.map(function (x) { var v = self.bins.get(x)[lane]; return v === undefined ? null : v; });
    }));
    var width = Math.max(300, this.el.clientWidth || 480);
    if (this.plot && this.plot.series.length !== this.lanes.length + 1) {
      this.plot.destroy();
      this.plot = null;
    }
    if (!this.plot) {
      this.plot = new uPlot({
        width: width, height: 200,
        scales: { x: { time: true }, y: this.range ? { range: this.range } : {} },
        axes: [{}, { label: this.unit }],
        series: [{}].concat(this.lanes.map(function (l, i) { return { label: l, stroke: COLOURS[i % COLOURS.length], width: 1.5 }; })),
      }, data, this.el);
    } else this.plot.setData(data);
  };

  var RECENT_S = 10;

  /** Each lane's mean busy % over the newest RECENT_S whole bins of the frame: the newest bin, still
   * filling (spans land when they end), is left out. */
  dash.recentBusy = function (frame) {
    var t = frame.series.t;
    var whole = t.filter(function (at) { return at + 1000 <= frame.at; }).length;
    var from = Math.max(0, whole - RECENT_S);
    return frame.series.busy.map(function (b) {
      var ys = b.y.slice(from, whole);
      var mean = ys.length ? ys.reduce(function (a, y) { return a + y; }, 0) / ys.length : 0;
      return { lane: b.lane, pct: +(100 * mean).toFixed(1) };
    });
  };

  function renderRecent(frame) {
    var box = document.getElementById('busy-recent');
    box.replaceChildren();
    dash.recentBusy(frame).forEach(function (r, i) {
      var s = document.createElement('span');
      s.textContent = (i ? ' · ' : '') + r.lane + ' ' + r.pct.toFixed(1) + ' %';
      s.dataset.stat = 'busy.' + r.lane;
      s.dataset.value = String(r.pct);
      box.appendChild(s);
    });
  }

  var busy, h2d;
  dash.renderCharts = function (frame) {
    renderRecent(frame);
    busy = busy || new History('chart-busy', 'busy %', [0, 100]);
    h2d = h2d || new History('chart-h2d', 'GB/s', null);
    var pct = frame.series.busy.map(function (b) { return { lane: b.lane, y: b.y.map(function (f) { return +(100 * f).toFixed(1); }) }; });
    busy.merge(frame.series.t, pct, 'y');
    h2d.merge(frame.series.t, frame.series.h2d, 'gbps');
  };
})();
