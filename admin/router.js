// The router: the URL's fragment (#/campaigns/...) names the screen.  The
// screens before sign-in are open; any other first asks the server for
// the session (GET /admin/session), and without one goes to sign-in.
import { api, setCsrf } from './api.js';
import { h, clear } from './ui.js';
import { root, session } from './shell.js';
import { signIn, reset, accept } from './screens/signin.js';
import { dashboard } from './screens/dashboard.js';
import { reports } from './screens/reports.js';
import { sites, site } from './screens/sites.js';
import { campaigns, campaign } from './screens/campaigns.js';
import { scenario } from './screens/scenarios.js';
import { messages } from './screens/messages.js';
import { leads, lead } from './screens/leads.js';
import { deliveries } from './screens/deliveries.js';
import { suppressions } from './screens/suppressions.js';
import { webhooks } from './screens/webhooks.js';
import { settings } from './screens/settings.js';
import { account } from './screens/account.js';
import { privacy } from './screens/privacy.js';

// [pattern, screen]: the pattern's groups are the screen's arguments.
export const open = [
  [/^#\/accept\/(fbi_[A-Za-z0-9_-]{43})$/, accept],
  [/^#\/reset$/, reset],
  [/^#\/signin$/, () => signIn(null)],
];

// the signed-in screens, {id}s as UUIDs; the first match wins
export const routes = [
  [/^#\/campaigns\/([0-9a-f-]{36})$/, campaign], [/^#\/campaigns$/, campaigns],
  [/^#\/sites\/([0-9a-f-]{36})$/, site], [/^#\/sites$/, sites],
  [/^#\/scenarios\/([0-9a-f-]{36})$/, scenario],
  [/^#\/leads\/([0-9a-f-]{36})$/, lead],
  [/^#\/messages$/, messages], [/^#\/leads$/, leads],
  [/^#\/deliveries$/, deliveries], [/^#\/suppressions$/, suppressions],
  [/^#\/webhooks$/, webhooks], [/^#\/settings$/, settings],
  [/^#\/reports$/, reports], [/^#\/privacy$/, privacy],
  [/^#\/account$/, account],
  [/^#?\/?$/, dashboard],
];

// The screen of a fragment in table: [screen, its arguments], or null.
export function resolve(table, hash) {
  for (const [re, view] of table) {
    const m = hash.match(re);
    if (m) return [view, m.slice(1)];
  }
  return null;
}

function notFound() {
  clear(root(), h('main', null, h('p', null, 'ページが見つかりません。'),
    h('a', { href: '#/' }, 'ダッシュボードへ')));
}

export async function route() {
  const hash = location.hash;
  let r = resolve(open, hash);
  if (r) return r[0](...r[1]);
  if (!session.me) {
    try {
      session.me = await api('GET', '/admin/session');
      setCsrf(session.me.csrf_token);
    } catch {
      session.me = null;
      location.hash = '#/signin';
      return;
    }
  }
  // a member who must enrol a second factor first sees only the account
  const tf = session.me.two_factor;
  if (tf && tf.enrol_only) return account();
  r = resolve(routes, hash);
  if (r) return r[0](...r[1]);
  notFound();
}
