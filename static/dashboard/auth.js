// The daemon's token, kept in sessionStorage (this tab only) and sent as an authorization header on
// every fetch; never put in a URL. Without one stored, requests go without it (a proxy in front
// may add it); a 401 shows the login form.
(function () {
  'use strict';
  var KEY = 'cuzk.token';
  var dash = (window.cuzkDash = window.cuzkDash || {});

  dash.token = function () {
    return sessionStorage.getItem(KEY) || '';
  };

  dash.authFetch = function (path, opts) {
    var headers = new Headers((opts && opts.headers) || {});
    var t = dash.token();
    if (t) headers.set('authorization', 'Bearer ' + t);
    return fetch(path, Object.assign({}, opts || {}, { headers: headers, cache: 'no-store', credentials: 'omit' }));
  };

  /** Shows the form; `onToken` runs with the token once one is entered. */
  dash.askForToken = function (problem, onToken) {
    var form = document.getElementById('login');
    var input = document.getElementById('token');
    document.getElementById('login-problem').textContent = problem || '';
    form.hidden = false;
    document.getElementById('board').hidden = true;
    form.onsubmit = function (ev) {
      ev.preventDefault();
      sessionStorage.setItem(KEY, input.value.trim());
      input.value = '';
      form.hidden = true;
      onToken();
    };
    input.focus();
  };

  dash.forgetToken = function () {
    sessionStorage.removeItem(KEY);
  };
})();
