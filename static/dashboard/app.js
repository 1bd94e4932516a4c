// The page's loop: read the live feed (server-sent events, read through fetch so the token travels
// in a header), render each frame, reconnect after a drop; a 401 asks for the token.
(function () {
  'use strict';
  var dash = window.cuzkDash;
  var RETRY_MS = 2000;
  var state = document.getElementById('connection');

  function show(text, cls) {
    state.textContent = text;
    state.className = 'state ' + (cls || '');
  }

  function render(frame) {
    document.getElementById('board').hidden = false;
    dash.renderStatus(frame.status);
    dash.renderJobs(frame);
    dash.renderGantt(frame.gantt);
    dash.renderCharts(frame);
    document.body.dataset.frameAt = String(frame.at);
  }

  /** Calls `onEvent(name, data)` for each event of an SSE body. */
  async function readEvents(body, onEvent) {
    var reader = body.getReader();
    var decoder = new TextDecoder();
    var buf = '';
    for (;;) {
      var r = await reader.read();
      if (r.done) return;
      buf += decoder.decode(r.value, { stream: true });
      var end;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        var block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        var name = 'message', data = [];
        block.split('\n').forEach(function (line) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        });
        if (data.length) onEvent(name, data.join('\n'));
      }
    }
  }

  async function connect() {
    show('connecting');
    var res;
    try {
      res = await dash.authFetch('/dashboard/events', { headers: { accept: 'text/event-stream' } });
    } catch (err) {
      show('daemon unreachable, retrying', 'down');
      return void setTimeout(connect, RETRY_MS);
    }
    if (res.status === 401) {
      var had = dash.token() !== '';
      dash.forgetToken();
      show('token needed', 'down');
      return dash.askForToken(had ? 'That token was refused.' : '', connect);
    }
    if (!res.ok || !res.body) {
      show('feed answered ' + res.status + ', retrying', 'down');
      return void setTimeout(connect, RETRY_MS);
    }
    document.getElementById('logout').hidden = dash.token() === '';
    show('live', 'live');
    try {
      await readEvents(res.body, function (name, data) {
        if (name === 'frame') render(JSON.parse(data));
        else if (name === 'problem') show('daemon: ' + JSON.parse(data).message, 'down');
      });
    } catch (err) {
      // the stream broke (daemon restarted, network): reconnect
    }
    show('disconnected, retrying', 'down');
    setTimeout(connect, RETRY_MS);
  }

  document.getElementById('logout').onclick = function () {
    dash.forgetToken();
    location.reload();
  };
  connect();
})();
