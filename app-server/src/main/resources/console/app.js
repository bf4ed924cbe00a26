// QingLong operator console: a static single-page front end over the public /v1 API.
// Plain ES modules, no build step, nothing loaded from elsewhere; it can do exactly what the
// signed-in user's permissions allow, because every action is an ordinary API call with their token.

import { call, explain, newId, projectPath, session } from './api.js';
import { duration, h, notice, replace, table } from './dom.js';
import { renderUsageChart } from './usage-chart.js';

const $ = (id) => document.getElementById(id);
const PERMISSIONS = ['package.manage', 'approval.decide', 'package.read', 'model.invoke', 'model.usage.read', 'project.admin'];
const VIEWS = ['approvals', 'propose', 'history', 'quota', 'usage', 'gateways', 'members'];

const rejections = [];

// Idempotency ids of requests without a definite answer yet (the server was unreachable, or 503):
// submitting the same request again reuses its id, so a lost response never makes it happen twice.
const retryIds = new Map();
function idFor(key, prefix) {
  if (!retryIds.has(key)) retryIds.set(key, newId(prefix));
  return retryIds.get(key);
}
function settled(key, r) {
  if (r.status !== 0 && r.status !== 503) retryIds.delete(key);
}

function status(text) {
  $('status').textContent = text;
}

/** Records a 429 of the durable quota for the quota view, and returns its explanation. */
function failure(r, operation) {
  const text = explain(r, operation);
  if (r.status === 429) {
    rejections.unshift({ when: new Date(), operation, text, deadline: Date.now() + (r.retryAfter ?? 1) * 1000 });
  }
  return text;
}

// ---- sign-in ---------------------------------------------------------------------------------

async function signIn(event) {
  event.preventDefault();
  const token = $('token').value.trim();
  const project = $('project').value.trim();
  session.signIn(token, project);
  $('token').value = '';
  const r = await call('GET', projectPath('members'));
  if (r.status === 401) {
    session.signOut();
    $('sign-in-message').textContent = 'This token was not accepted.';
    return;
  }
  $('sign-in-message').textContent = '';
  enter();
}

function enter() {
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('session-line').hidden = false;
  $('session-line').textContent = `Project ${session.project} · signed in with a bearer token (kept in this tab only)`;
  $('sign-out').hidden = false;
  show('approvals');
}

function signOut() {
  session.signOut();
  window.location.replace('./');
}

// ---- navigation ------------------------------------------------------------------------------

function show(view) {
  for (const v of VIEWS) {
    $('view-' + v).hidden = v !== view;
  }
  for (const tab of document.querySelectorAll('.tab')) {
    tab.setAttribute('aria-current', tab.dataset.view === view ? 'page' : 'false');
  }
  status('');
  $('h-' + view).focus();
  RENDER[view]();
}

// ---- proposals and approvals -----------------------------------------------------------------

function actionText(a) {
  return `${a.type} ${a.package} ${a.version}`;
}

function proposalTable(caption, proposals, withDecisions) {
  const headers = ['Proposal', 'Action', 'Action digest', 'Proposed by', 'State', 'Updated'];
  if (withDecisions) headers.push('Decision');
  const rows = proposals.map((p) => {
    const row = [
      h('code', {}, p.proposalId),
      actionText(p.action),
      h('code', { class: 'digest' }, p.actionDigest),
      p.proposedBy,
      h('span', { class: 'state ' + p.state }, p.state),
      p.updatedAt ?? '',
    ];
    if (withDecisions) row.push(p.state === 'pending' ? decisionButtons(p) : '—');
    return row;
  });
  return table(caption, headers, rows);
}

/** How many approvers approved so far. */
function approvalsOf(a) {
  return a.decisions.filter((d) => d.decision === 'approve').length;
}

function decisionButtons(p) {
  return h(
    'span',
    { class: 'actions' },
    h('button', { type: 'button', class: 'approve', 'aria-label': `Approve proposal ${p.proposalId}`, onclick: () => decide(p, 'approve') }, 'Approve'),
    h('button', { type: 'button', class: 'reject', 'aria-label': `Reject proposal ${p.proposalId}`, onclick: () => decide(p, 'reject') }, 'Reject'),
  );
}

async function decide(p, decision) {
  // The digest sent is the one shown: the API refuses the decision if the action changed.
  const key = `decide:${session.project}:${p.approvalId}:${decision}:${p.actionDigest}`;
  const r = await call('POST', projectPath('plugin-packages', 'approvals', p.approvalId, 'decisions'), {
    decisionId: idFor(key, 'console'),
    decision,
    actionDigest: p.actionDigest,
  });
  settled(key, r);
  if (r.ok) {
    const a = r.json;
    const left = a.requiredApprovals - approvalsOf(a);
    status(a.state === 'pending'
      ? `Proposal ${p.proposalId}: ${approvalsOf(a)} of ${a.requiredApprovals} approvals; it waits for ${left} more.`
      : `Proposal ${p.proposalId} ${a.state} by ${a.decidedBy}.`);
    replace($('approval-detail'), notice(`Decision recorded: ${decision} (approval ${a.approvalId} is ${a.state}, ${approvalsOf(a)} of ${a.requiredApprovals} approvals).`, 'ok'));
    renderApprovals();
  } else {
    replace($('approval-detail'), notice(failure(r, 'decide'), 'error'));
  }
}

/**
 * One page of GET …/plugin-packages/proposals (oldest first; {items, nextCursor}, nextCursor null
 * on the last page). Each read consumes one unit of the caller's inspect quota.
 */
function listProposals(state, cursor, limit) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (state) query.set('state', state);
  if (cursor) query.set('cursor', cursor);
  return call('GET', projectPath('plugin-packages', 'proposals') + '?' + query);
}

/**
 * A paged proposal list in a container: the first page, then "Load more" appends the next page
 * with the server's nextCursor until it is null.
 */
async function renderProposalPages(container, state, caption, empty, withDecisions) {
  const items = [];
  const limit = $(container.id.replace(/-list$/, '') + '-page-size').value;
  async function page(cursor) {
    const r = await listProposals(state, cursor, limit);
    if (!r.ok) {
      replace(container, items.length ? proposalTable(caption, items, withDecisions) : null, notice(failure(r, 'inspect'), 'error'));
      return;
    }
    items.push(...(r.json.items ?? []));
    const next = r.json.nextCursor ?? null;
    replace(
      container,
      items.length ? proposalTable(caption, items, withDecisions) : notice(empty),
      next
        ? h('button', { type: 'button', class: 'more', id: container.id + '-more', onclick: () => page(next) }, 'Load more')
        : null,
    );
  }
  await page(null);
}

function renderApprovals() {
  return renderProposalPages($('approvals-list'), 'pending', 'Pending proposals', 'Nothing waits for a decision.', true);
}

async function openProposal(event) {
  event.preventDefault();
  const id = $('open-proposal').value.trim();
  // GET the proposal, then its approval (the read routes: package.read suffices; each read
  // consumes one unit of the inspect quota). An unknown id is a 409 conflict.
  const r = await call('GET', projectPath('plugin-packages', 'proposals', id));
  if (!r.ok) {
    replace($('approval-detail'), notice(failure(r, 'inspect'), 'error'));
    return;
  }
  const p = r.json;
  const ra = await call('GET', projectPath('plugin-packages', 'approvals', p.approvalId));
  if (!ra.ok) {
    replace($('approval-detail'), notice(failure(ra, 'inspect'), 'error'));
    return;
  }
  const a = ra.json;
  replace(
    $('approval-detail'),
    h(
      'article',
      { class: 'card', 'aria-labelledby': 'detail-title' },
      h('h3', { id: 'detail-title' }, `Proposal ${p.proposalId}`),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Action'), h('dd', {}, actionText(p.action)),
        h('dt', {}, 'Artifact digest'), h('dd', {}, h('code', {}, p.action.artifactDigest ?? '—')),
        h('dt', {}, 'Action digest'), h('dd', {}, h('code', { class: 'digest', id: 'detail-digest' }, p.actionDigest)),
        h('dt', {}, 'Proposed by'), h('dd', {}, p.proposedBy),
        h('dt', {}, 'Approval'), h('dd', {}, `${a.approvalId} · ${a.state}${a.decidedBy ? ' by ' + a.decidedBy : ''}`),
        h('dt', {}, 'Approvals'), h('dd', { id: 'detail-approvals' }, `${approvalsOf(a)} of ${a.requiredApprovals} required`),
        h('dt', {}, 'Decisions'),
        h(
          'dd',
          {},
          a.decisions.length === 0
            ? 'none yet'
            : h('ul', { id: 'detail-decisions' }, ...a.decisions.map((d) => h('li', {}, `${d.decision} by ${d.decidedBy}, ${d.decidedAt}`))),
        ),
      ),
      p.state === 'pending' ? decisionButtons(p) : notice(`This proposal is ${p.state}; there is nothing to decide.`),
    ),
  );
}

async function propose(event) {
  event.preventDefault();
  const digest = $('p-digest').value.trim();
  const action = { type: $('p-type').value, package: $('p-package').value.trim(), version: $('p-version').value.trim() };
  if (digest) action.artifactDigest = digest;
  const key = `propose:${session.project}:${JSON.stringify(action)}`;
  const r = await call('POST', projectPath('plugin-packages', 'proposals'), { actionRef: idFor(key, 'console'), action });
  settled(key, r);
  if (!r.ok) {
    replace($('propose-result'), notice(failure(r, 'propose'), 'error'));
    return;
  }
  status(`Proposal ${r.json.proposalId} created; it waits for another user's decision.`);
  replace(
    $('propose-result'),
    h(
      'div',
      { class: 'notice ok' },
      h('p', {}, 'Proposed. Another user with approval.decide must approve it.'),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Proposal id'), h('dd', {}, h('code', { id: 'proposed-id' }, r.json.proposalId)),
        h('dt', {}, 'Action digest'), h('dd', {}, h('code', { class: 'digest' }, r.json.actionDigest)),
        h('dt', {}, 'State'), h('dd', {}, r.json.state),
      ),
    ),
  );
}

function renderHistory() {
  return renderProposalPages($('history-list'), null, 'Proposals, oldest first', 'No proposals in this Project.', false);
}

// ---- quota -----------------------------------------------------------------------------------

/**
 * GET …/management-quota: {projectId, userId, enabled, windowMs, databaseNowMs, databaseNow,
 * operations: [{operation, limit, used, remaining, windowStartMs, windowStart, resetAtMs, resetAt,
 * resetSeconds}]}. The window fields are null while no window is open (the next request opens one).
 * Reading it consumes none of it.
 */
async function renderQuota() {
  const r = await call('GET', projectPath('management-quota'));
  if (!r.ok) {
    replace($('quota-table'), notice(failure(r, 'read quota'), 'error'));
  } else if (r.json.enabled === false) {
    replace($('quota-table'), notice('The management quota is switched off on this server (qinglong.management-quota.enabled=false): nothing is counted.', 'warn'));
  } else {
    const q = r.json;
    const rows = (q.operations ?? []).map((o) => {
      const op = String(o.operation).replace(/^plugin-package\./, '');
      // Count down on the database clock: the reset is resetAtMs − databaseNowMs from now.
      const open = typeof o.resetAtMs === 'number' && typeof q.databaseNowMs === 'number';
      const d = open ? Date.now() + (o.resetAtMs - q.databaseNowMs) : null;
      return [
        op,
        String(o.limit),
        h('span', { 'data-operation': op, class: 'used' }, String(o.used)),
        h('strong', { 'data-operation': op, class: 'remaining' }, String(o.remaining)),
        o.windowStartMs === null ? '—' : new Date(o.windowStartMs).toLocaleTimeString(),
        d === null
          ? h('span', { 'data-operation': op, class: 'reset' }, 'no open window (the next request opens one)')
          : h('span', { 'data-operation': op, class: 'countdown reset', 'data-deadline': String(d) }, duration((d - Date.now()) / 1000)),
      ];
    });
    replace(
      $('quota-table'),
      table(
        `Your quota per operation (${q.userId}, window ${duration(q.windowMs / 1000)})`,
        ['Operation', 'Limit', 'Used', 'Remaining', 'Window start', 'Window resets in'],
        rows,
      ),
    );
  }
  replace(
    $('quota-rejections'),
    rejections.length
      ? table('Rejections', ['When', 'Operation', 'Explanation', 'Retry in'], rejections.map((x) => [
          x.when.toLocaleTimeString(),
          x.operation,
          x.text,
          h('span', { class: 'countdown', 'data-deadline': String(x.deadline) }, duration((x.deadline - Date.now()) / 1000)),
        ]))
      : notice('No quota rejections in this session.'),
  );
}

// ---- model usage -----------------------------------------------------------------------------

async function renderUsage() {
  const r = await call('GET', projectPath('model-usage', 'window'));
  if (r.status === 404 || r.status === 405) {
    replace($('usage-table'), notice('Model quota is not enabled on this server (qinglong.ai.enabled=false).', 'warn'));
    replace($('usage-chart'));
    return;
  }
  if (!r.ok) {
    replace($('usage-table'), notice(failure(r, 'read model usage'), 'error'));
    replace($('usage-chart'));
    return;
  }
  const u = r.json;
  const limits = u.limits ?? {};
  const end = u.windowStartMs + u.windowMs - r.serverSkewMs;
  const cell = (used, limit) => (limit === null || limit === undefined ? `${used} (no limit)` : `${used} of ${limit}`);
  replace(
    $('usage-table'),
    table('Current window', ['Window start', 'Window ends in', 'Invocations', 'Tokens', 'Cost (micros)'], [[
      new Date(u.windowStartMs).toLocaleString(),
      h('span', { class: 'countdown', 'data-deadline': String(end) }, duration((end - Date.now()) / 1000)),
      cell(u.invocations, limits.maxInvocations),
      cell(u.tokens, limits.maxTokens),
      cell(u.costMicros, limits.maxCostMicros),
    ]]),
  );
  await renderUsageChart($('usage-chart'), u);
}

// ---- gateways and worker ---------------------------------------------------------------------

/** GET /v1/downloads/gateways (global administrators only): mode, policy, slots, this process. */
async function renderGateways() {
  const r = await call('GET', '/v1/downloads/gateways');
  if (r.status === 403) {
    replace($('gateways-body'), notice('Gateways and the publication worker can be seen only by a global administrator (qinglong.auth.global-admins); this token is not one.', 'warn'));
    return;
  }
  if (!r.ok) {
    replace($('gateways-body'), notice(failure(r, 'read the gateways'), 'error'));
    return;
  }
  const g = r.json;
  const time = (t) => (t ? new Date(t).toLocaleString() : '—');
  const rate = (n) => (n === 0 ? 'unlimited' : `${n} B/s`);
  const p = g.process;
  const policy = g.policy
    ? table('Shared policy (stored)', ['Total rate', 'Per principal', 'Slots', 'Share per slot'], [[
      rate(g.policy.rateBytesPerSecond),
      rate(g.policy.perPrincipalBytesPerSecond),
      String(g.policy.slots),
      `${rate(g.policy.share.rateBytesPerSecond)}, ${rate(g.policy.share.perPrincipalBytesPerSecond)} per principal`,
    ]])
    : notice('No shared policy is stored: downloads are standalone (one download server per database).');
  replace(
    $('gateways-body'),
    h('p', { id: 'gateways-mode' }, `Download mode: ${g.mode} (store ${g.store})`),
    policy,
    g.slots.length
      ? table(`Slots (database clock ${time(g.databaseNow)})`, ['Slot', 'Lease', 'Generation', 'Renewed', 'Expires'],
        g.slots.map((s) => [String(s.slot), s.state, String(s.generation), time(s.renewedAt), time(s.expiresAt)]), 'grid gateways-slots')
      : null,
    table('This process', ['Role', 'Serves downloads', 'Mode', 'Slot', 'Lease', 'Bytes served', 'Publication worker'], [[
      p.role,
      p.downloads ? (p.serves ? 'yes' : 'no (paused)') : 'no',
      p.mode,
      p.slot === null ? '—' : String(p.slot),
      p.lease ? `${p.lease.state}, generation ${p.lease.generation}` : '—',
      p.bytesServed === null ? '—' : String(p.bytesServed),
      g.worker.runsHere ? g.worker.state : 'not on this process',
    ]], 'grid gateways-process'),
  );
}

// ---- members ---------------------------------------------------------------------------------

/** GET …/members?limit=&cursor= ({projectId, members, nextCursor}), in user-id order, paged. */
async function renderMembers() {
  const members = [];
  async function page(cursor) {
    const query = new URLSearchParams({ limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const r = await call('GET', projectPath('members') + '?' + query);
    if (!r.ok) {
      replace($('members-table'), notice(failure(r, 'list members'), 'error'));
      return;
    }
    members.push(...(r.json.members ?? []));
    const next = r.json.nextCursor ?? null;
    replace(
      $('members-table'),
      table(`Members of ${session.project}`, ['User', 'Permissions'], members.map((m) => [m.userId, m.permissions.join(', ') || '(none)'])),
      next ? h('button', { type: 'button', class: 'more', id: 'members-more', onclick: () => page(next) }, 'Load more') : null,
    );
  }
  await page(null);
}

async function saveMember(event) {
  event.preventDefault();
  const user = $('m-user').value.trim();
  const permissions = PERMISSIONS.filter((p) => $('perm-' + p).checked);
  const r = await call('PUT', projectPath('members', user), { permissions });
  if (r.ok) {
    status(`Member ${user} saved.`);
    renderMembers();
  } else {
    status(failure(r, 'change members'));
  }
}

// ---- wiring ----------------------------------------------------------------------------------

const RENDER = {
  approvals: renderApprovals,
  propose: () => {},
  history: renderHistory,
  quota: renderQuota,
  usage: renderUsage,
  gateways: renderGateways,
  members: renderMembers,
};

function tick() {
  let reset = false;
  for (const el of document.querySelectorAll('.countdown')) {
    const left = (Number(el.dataset.deadline) - Date.now()) / 1000;
    if (left <= 0 && el.textContent !== 'now' && el.classList.contains('reset')) reset = true;
    el.textContent = left > 0 ? duration(left) : 'now';
  }
  // A quota window just ended: read the quota again (reading it consumes none of it).
  if (reset && !$('view-quota').hidden) renderQuota();
}

function init() {
  replace(
    $('m-permissions'),
    PERMISSIONS.map((p) => h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'perm-' + p, value: p }), ' ' + p)),
  );
  for (const select of document.querySelectorAll('select.page-size')) {
    replace(select, [5, 20, 50, 200].map((n) => h('option', { value: n, selected: n === 50 }, n)));
  }
  $('sign-in-form').addEventListener('submit', signIn);
  $('sign-out').addEventListener('click', signOut);
  $('open-form').addEventListener('submit', openProposal);
  $('propose-form').addEventListener('submit', propose);
  $('member-form').addEventListener('submit', saveMember);
  $('quota-refresh').addEventListener('click', renderQuota);
  $('approvals-page-size').addEventListener('change', renderApprovals);
  $('history-page-size').addEventListener('change', renderHistory);
  $('usage-refresh').addEventListener('click', renderUsage);
  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => show(tab.dataset.view));
  }
  setInterval(tick, 1000);
  if (session.token && session.project) enter();
  else $('token').focus();
}

init();
