// The Formback admin UI (issue 17): a single page over the same /api/v1
// operations as the public API, called with the member's session.  The
// route is the URL's fragment (#/campaigns/...), so the web server serves
// one static page and a link's token never reaches a server log.
// router.js maps fragments to screens/*.js; shell.js holds the session
// and the frame; ui.js builds elements (text only); api.js calls /api/v1.
import { route } from './router.js';
import { session } from './shell.js';

// A request refused as signed out sends the page back to sign-in.
window.addEventListener('unhandledrejection', (ev) => {
  if (ev.reason && ev.reason.status === 401) {
    session.me = null;
    location.hash = '#/signin';
  }
});
window.addEventListener('hashchange', route);
route();
