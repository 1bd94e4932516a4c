// The page's numbers and tables from one frame. Every number shown from GetStatus carries its raw
// value in data-value (bytes, counts), so what is on the page can be compared with the RPC.
(function () {
  'use strict';
  var dash = (window.cuzkDash = window.cuzkDash || {});
  var PRIORITIES = ['critical', 'high', 'normal', 'low'];

  var num = function (v) { return Number(v || 0); };
  dash.mib = function (bytes) { return (num(bytes) / 1048576).toFixed(1) + ' MiB'; };
  var ms = function (v) { return v === null || v === undefined ? '–' : v < 10 ? v.toFixed(2) + ' ms' : v.toFixed(0) + ' ms'; };

  /** A cell: text shown, raw value and a stable name for tests and scripts. */
  function cell(tag, text, stat, value) {
    var el = document.createElement(tag);
    el.textContent = text;
    if (stat) el.dataset.stat = stat;
    if (value !== undefined) el.dataset.value = String(value);
    return el;
  }

  function fill(id, head, rows) {
    var table = document.getElementById(id);
    table.replaceChildren();
    var tr = document.createElement('tr');
    head.forEach(function (h) { tr.appendChild(cell('th', h)); });
    table.appendChild(tr);
    rows.forEach(function (cells) {
      var r = document.createElement('tr');
      cells.forEach(function (c) { r.appendChild(c); });
      table.appendChild(r);
    });
  }

  function budgetRow(name, b) {
    b = b || {};
    var limit = num(b.limit), used = num(b.used);
    return [cell('td', name), cell('td', dash.mib(used), 'budget.' + name + '.used', used), cell('td', dash.mib(limit), 'budget.' + name + '.limit', limit),
      cell('td', dash.mib(limit - used), 'budget.' + name + '.free', limit - used), cell('td', String(num(b.waiters)), 'budget.' + name + '.waiters', num(b.waiters))];
  }

  dash.renderStatus = function (s) {
    var q = s.queues || {};
    fill('queue', ['priority', 'queued'], PRIORITIES.map(function (p) { return [cell('td', p), cell('td', String(num(q[p])), 'queue.' + p, num(q[p]))]; })
      .concat([[cell('td', 'running'), cell('td', String(num(s.running)), 'running', num(s.running))]]));
    var b = s.budget || {};
    fill('budget', ['pool', 'reserved', 'limit', 'free', 'waiting'], [budgetRow('host', b.host), budgetRow('pinned', b.pinned)]
      .concat((b.gpu || []).map(function (g) { return budgetRow(g.id, g); })));
    var p = s.pinnedPool || {};
    fill('pinned-pool', ['', ''], [
      [cell('td', 'enabled'), cell('td', p.enabled ? 'yes' : 'no', 'pool.enabled', !!p.enabled)],
      [cell('td', 'buffers held'), cell('td', String(num(p.buffers)), 'pool.buffers', num(p.buffers))],
      [cell('td', 'bytes held'), cell('td', dash.mib(p.bytes), 'pool.bytes', num(p.bytes))],
      [cell('td', 'buffers in use'), cell('td', String(num(p.inUse)), 'pool.inUse', num(p.inUse))],
      [cell('td', 'allocations (after warm-up)'), cell('td', num(p.allocations) + ' (' + num(p.allocationsAfterWarmup) + ')', 'pool.allocations', num(p.allocations))],
    ]);
    // the witness stage (jobs with inputs): slots, waiting, computing, done, mean time per witness
    var w = s.witness || {};
    var wDone = num(w.done);
    fill('witness-stage', ['', ''], [
      [cell('td', 'busy / slots'), cell('td', num(w.busy) + ' / ' + num(w.slots), 'witness.slots', num(w.slots))],
      [cell('td', 'waiting'), cell('td', String(num(w.queued)), 'witness.queued', num(w.queued))],
      [cell('td', 'done (failed)'), cell('td', wDone + ' (' + num(w.failed) + ')', 'witness.done', wDone)],
      [cell('td', 'per witness'), cell('td', wDone > 0 ? ms(num(w.totalMs) / wDone) : '–', 'witness.msPerWitness', wDone > 0 ? num(w.totalMs) / wDone : 0)],
      [cell('td', 'generator processes'), cell('td', String(num(w.processes)), 'witness.processes', num(w.processes))],
    ]);
    fill('devices', ['device', 'name', 'memory free', 'busy since start', 'job'], (s.devices || []).map(function (d) {
      return [cell('td', d.id), cell('td', d.name || ''), cell('td', dash.mib(d.memoryFree) + ' / ' + dash.mib(d.memoryTotal)),
        cell('td', d.utilisation === undefined ? '–' : (100 * d.utilisation).toFixed(1) + ' %'), cell('td', d.currentJob || '')];
    }));
    fill('keys', ['key', 'residency', 'size', 'users'], (s.keys || []).map(function (k) {
      return [cell('td', k.id, 'key'), cell('td', k.residency || ''), cell('td', dash.mib(k.bytes)), cell('td', String(num(k.users)))];
    }));
    var t = s.totals || {};
    document.getElementById('totals').textContent = 'since start: ' + num(t.completed) + ' completed, ' + num(t.failed) + ' failed, ' + num(t.cancelled) + ' cancelled, ' + num(t.proofs) + ' proofs';
    document.getElementById('daemon').textContent = 'cuzk ' + (s.version || '') + ' · ' + (s.backend || '') + (s.paused ? ' · queue paused' : '') + (s.draining ? ' · draining' : '');
  };

  var PHASES = ['queue', 'witness', 'synthesis', 'h2d', 'ntt', 'msm', 'd2h', 'finalize', 'verify'];

  dash.renderJobs = function (frame) {
    fill('jobs', ['job', 'key', 'state', 'device'].concat(PHASES), frame.jobs.map(function (j) {
      var row = [cell('td', j.id, 'job-id'), cell('td', j.key), cell('td', j.state, 'job-state'), cell('td', j.device)];
      row[0].className = 'id';
      row[1].className = 'key';
      return row.concat(PHASES.map(function (ph) { return cell('td', j.timings[ph] === undefined ? '' : ms(j.timings[ph])); }));
    }));
    document.getElementById('throughput').textContent = frame.throughput.toFixed(2);
    document.getElementById('latency-p50').textContent = ms(frame.latency.p50);
    document.getElementById('latency-p99').textContent = ms(frame.latency.p99);
    document.getElementById('latency-count').textContent = '(' + frame.latency.count + ' jobs)';
  };
})();
