// The plain-HTTP /trust page: when this device trusts the server's certificate already, a
// request to the HTTPS port succeeds, and the page moves on to the secure address its
// "continue" link names. When it does not, the request fails (the browser refuses the
// certificate) and the page stays, with the steps. A no-cors request: only whether it
// completes matters, not what it says.
(function () {
  'use strict';
  var link = document.getElementById('continue');
  if (!link || typeof fetch !== 'function') { return; }
  var target = new URL(link.href);
  fetch(target.origin + '/healthz', { mode: 'no-cors', cache: 'no-store', credentials: 'omit' })
    .then(function () { location.replace(link.href); }, function () {});
})();
