// QingLong operator console: a static single-page front end over the public /v1 API.
// Plain ES modules, no build step, nothing loaded from elsewhere; it can do exactly what the
// signed-in user's permissions allow, because every action is an ordinary API call with their token.

import { call, explain, newId, projectPath, session } from './api.js';
import { copyText, duration, errorNear, h, localTime, notice, replace, shortDigest, shortId, table, time } from './dom.js';
import { renderUsageChart } from './usage-chart.js';

const $ = (id) => document.getElementById(id);
const PERMISSIONS = ['package.manage', 'approval.decide', 'package.read', 'model.invoke', 'model.usage.read', 'project.admin'];
const VIEWS = ['approvals', 'propose', 'history', 'quota', 'usage', 'gateways', 'members', 'webhooks'];

const rejections = [];

// Who is signed in, from GET …/me: {userId, globalAdmin, permissions}. It decides what the console
// shows and offers; every action is still the server's decision.
let me = { userId: null, globalAdmin: false, permissions: [] };

/** Whether the signed-in user holds permission p in the Project. */
function can(p) {
  return me.permissions.includes(p);
}

/** Any permission at all in the Project (a global administrator holds project.admin). */
function anyPermission() {
  return me.permissions.length > 0;
}

/** Whether the user may read the Project's proposals (a global administrator reads every Project). */
function readsProposals() {
  return me.globalAdmin || can('package.read') || can('package.manage') || can('approval.decide');
}

// Which views the user may use: a tab is shown only for these.
const ALLOWED = {
  approvals: readsProposals,
  propose: () => can('package.manage'),
  history: readsProposals,
  quota: anyPermission,
  usage: () => me.globalAdmin || can('model.usage.read'),
  gateways: () => me.globalAdmin,
  members: anyPermission,
  webhooks: () => can('project.admin'),
};

/**
 * The first view: approval.decide → Pending approvals; else package.manage → Propose; else
 * package.read → Proposal history; else model.usage.read → Model usage; else a global
 * administrator → Pending approvals (read-only); else project.admin → Members; else none.
 */
function firstView() {
  if (can('approval.decide')) return 'approvals';
  if (can('package.manage')) return 'propose';
  if (can('package.read')) return 'history';
  if (can('model.usage.read')) return 'usage';
  if (me.globalAdmin) return 'approvals';
  if (can('project.admin')) return 'members';
  return null;
}

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
  const r = await call('GET', projectPath('me'));
  if (r.status === 401) {
    session.signOut();
    $('sign-in-message').textContent = 'This token was not accepted.';
    return;
  }
  if (!r.ok) {
    session.signOut();
    $('sign-in-message').textContent = explain(r, 'sign in');
    return;
  }
  $('sign-in-message').textContent = '';
  enter(r.json);
}

/** Shows the console for the signed-in user (`who`: GET …/me's answer). */
function enter(who) {
  me = { userId: who.userId, globalAdmin: who.globalAdmin === true, permissions: who.permissions ?? [] };
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('session-line').hidden = false;
  replace(
    $('session-line'),
    'Signed in as ',
    h('strong', { id: 'who' }, me.userId),
    me.globalAdmin ? h('span', { id: 'who-admin' }, ' (global administrator)') : null,
    ' · Project ',
    h('strong', { id: 'who-project' }, session.project),
  );
  $('sign-out').hidden = false;
  for (const tab of document.querySelectorAll('.tab')) {
    tab.parentElement.hidden = !ALLOWED[tab.dataset.view]();
  }
  $('member-form').hidden = !can('project.admin');
  $('approvals-hint-decide').hidden = !can('approval.decide');
  $('approvals-hint-read').hidden = can('approval.decide');
  const first = firstView();
  $('no-permission').hidden = first !== null;
  if (first === null) {
    for (const v of VIEWS) $('view-' + v).hidden = true;
    $('no-permission-project').textContent = session.project;
    $('no-permission').focus();
    return;
  }
  show(first);
}

/** Signed in already (a reload): ask who the token is again. */
async function resume() {
  const r = await call('GET', projectPath('me'));
  if (!r.ok) {
    session.signOut();
    $('sign-in-message').textContent = r.status === 401 ? 'This token was not accepted.' : explain(r, 'sign in');
    $('token').focus();
    return;
  }
  enter(r.json);
}

function signOut() {
  session.signOut();
  window.location.replace('./');
}

// ---- navigation ------------------------------------------------------------------------------

function show(view) {
  if (!ALLOWED[view]()) return;
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
  // Decision buttons only for a user who may decide: everyone else reads the list.
  withDecisions = withDecisions && can('approval.decide');
  if (withDecisions) headers.push('Decision');
  const rows = proposals.map((p) => {
    const row = [
      shortId(p.proposalId),
      actionText(p.action),
      shortDigest(p.actionDigest),
      p.proposedBy,
      h('span', { class: 'state ' + p.state }, p.state),
      time(p.updatedAt),
    ];
    if (withDecisions) row.push(p.state === 'pending' && can('approval.decide') ? decisionButtons(p) : '—');
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
    h('button', { type: 'button', class: 'approve', 'aria-label': `Approve proposal ${p.proposalId}`, onclick: (e) => decide(p, 'approve', e.currentTarget) }, 'Approve'),
    h('button', { type: 'button', class: 'reject', 'aria-label': `Reject proposal ${p.proposalId}`, onclick: (e) => decide(p, 'reject', e.currentTarget) }, 'Reject'),
  );
}

async function decide(p, decision, button) {
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
    // Next to the button that was pressed (in its row, or under the opened proposal), in view.
    const text = failure(r, 'decide');
    if (button && button.closest('#approval-detail')) {
      replace($('approval-detail'), notice(text, 'error'));
      $('approval-detail').scrollIntoView({ block: 'nearest' });
    } else if (button && button.isConnected) {
      errorNear(button, text);
    } else {
      replace($('approval-detail'), notice(text, 'error'));
    }
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
      container.scrollIntoView({ block: 'nearest' });
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
        h('dt', {}, 'Artifact digest'), h('dd', {}, p.action.artifactDigest ? shortDigest(p.action.artifactDigest) : '—'),
        h('dt', {}, 'Action digest'), h('dd', {}, h('code', { class: 'digest', id: 'detail-digest', title: p.actionDigest }, p.actionDigest)),
        h('dt', {}, 'Proposed by'), h('dd', {}, p.proposedBy),
        h('dt', {}, 'Approval'), h('dd', {}, `${a.approvalId} · ${a.state}${a.decidedBy ? ' by ' + a.decidedBy : ''}`),
        h('dt', {}, 'Approvals'), h('dd', { id: 'detail-approvals' }, `${approvalsOf(a)} of ${a.requiredApprovals} required`),
        h('dt', {}, 'Decisions'),
        h(
          'dd',
          {},
          a.decisions.length === 0
            ? 'none yet'
            : h('ul', { id: 'detail-decisions' }, ...a.decisions.map((d) => h('li', {}, `${d.decision} by ${d.decidedBy}, `, time(d.decidedAt)))),
        ),
      ),
      p.state !== 'pending'
        ? notice(`This proposal is ${p.state}; there is nothing to decide.`)
        : can('approval.decide')
          ? decisionButtons(p)
          : notice('Pending: a user with approval.decide in this Project decides it.'),
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
    $('propose-result').scrollIntoView({ block: 'nearest' });
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
        h('dt', {}, 'Action digest'), h('dd', {}, h('code', { class: 'digest', title: r.json.actionDigest }, r.json.actionDigest)),
        h('dt', {}, 'State'), h('dd', {}, r.json.state),
      ),
    ),
  );
}

function renderHistory() {
  return renderProposalPages($('history-list'), null, 'Proposals, oldest first', 'No proposals in this Project.', false);
}

// ---- quota -----------------------------------------------------------------------------------

/** "propose" for "plugin-package.propose"; other operations keep their wire name. */
function shortOp(operation) {
  return String(operation).replace(/^plugin-package\./, '');
}

/** The quota view: the caller's own quota, this session's rejections and, for Project admins, the policy. */
async function renderQuota() {
  await Promise.all([renderQuotaTable(), renderPolicy()]);
}

/**
 * GET …/management-quota: {projectId, userId, enabled, windowMs, databaseNowMs, databaseNow,
 * operations: [{operation, limit, limitSource, shadowLimit, used, remaining, windowStartMs,
 * windowStart, resetAtMs, resetAt, resetSeconds}]}. `limit` is the effective limit, `limitSource`
 * where it comes from (default, project, user), `shadowLimit` null without one. The window fields
 * are null while no window is open (the next request opens one). Reading it consumes none of it.
 */
async function renderQuotaTable() {
  const r = await call('GET', projectPath('management-quota'));
  if (!r.ok) {
    replace($('quota-table'), notice(failure(r, 'read quota'), 'error'));
  } else if (r.json.enabled === false) {
    replace($('quota-table'), notice('The management quota is switched off on this server (qinglong.management-quota.enabled=false): nothing is counted.', 'warn'));
  } else {
    const q = r.json;
    const rows = (q.operations ?? []).map((o) => {
      const op = shortOp(o.operation);
      // Count down on the database clock: the reset is resetAtMs − databaseNowMs from now.
      const open = typeof o.resetAtMs === 'number' && typeof q.databaseNowMs === 'number';
      const d = open ? Date.now() + (o.resetAtMs - q.databaseNowMs) : null;
      const shadow = typeof o.shadowLimit === 'number' ? String(o.shadowLimit) : 'none';
      return [
        op,
        h('span', { 'data-operation': op, class: 'limit' }, String(o.limit)),
        h('span', { 'data-operation': op, class: 'limit-source' }, o.limitSource ?? '—'),
        h('span', { 'data-operation': op, class: 'shadow-limit' }, shadow),
        h('span', { 'data-operation': op, class: 'used' }, String(o.used)),
        h('strong', { 'data-operation': op, class: 'remaining' }, String(o.remaining)),
        time(o.windowStartMs),
        d === null
          ? h('span', { 'data-operation': op, class: 'reset' }, 'no open window (the next request opens one)')
          : h(
            'span',
            {},
            h('span', { 'data-operation': op, class: 'countdown reset', 'data-deadline': String(d) }, duration((d - Date.now()) / 1000)),
            ' (at ',
            time(d),
            ')',
          ),
      ];
    });
    replace(
      $('quota-table'),
      table(
        `Your quota per operation (${q.userId}, window ${duration(q.windowMs / 1000)})`,
        ['Operation', 'Limit', 'Limit from', 'Shadow limit', 'Used', 'Remaining', 'Window start', 'Window resets in'],
        rows,
      ),
    );
  }
  replace(
    $('quota-rejections'),
    rejections.length
      ? table('Rejections', ['When', 'Operation', 'Explanation', 'Retry in'], rejections.map((x) => [
          time(x.when),
          x.operation,
          x.text,
          h('span', { class: 'countdown', 'data-deadline': String(x.deadline) }, duration((x.deadline - Date.now()) / 1000)),
        ]))
      : notice('No quota rejections in this session.'),
  );
}

// ---- quota policy (limits as data) -----------------------------------------------------------
//
// GET …/management-quota/policy?limit=&cursor= needs project.admin (global administrators hold
// it): {projectId, windowMs, defaults: {op: n}, project: Limits|null, users: [Limits],
// nextCursor, shadowRefusals: [{userId, operation, used, shadowLimit, wouldHaveRefused,
// windowStartMs, windowStart}]}, where Limits = {projectId, userId, revision, limits: {op: n},
// shadowLimits: {op: n}, setBy, setAtMs, setAt}. Only a global administrator may PUT
// …/policy (the Project's limits) or …/users/{userId} (one override; {} removes it). A PUT
// answers once the change is in force on every replica, about a second after it is stored.

const QUOTA_OPERATIONS = ['plugin-package.propose', 'plugin-package.decide', 'plugin-package.inspect', 'model-usage.read', 'artifact.upload'];
const KINDS = [
  { key: 'limits', id: 'limit', label: 'limit' },
  { key: 'shadowLimits', id: 'shadow', label: 'shadow limit' },
];

// What the last read showed, and the message each form shows after its last action (kept across
// the refresh that follows a save).
let policy = null;
const policyMessages = { project: null, user: null };

function policyQuery(cursor) {
  const query = new URLSearchParams({ limit: $('policy-page-size').value || '50' });
  if (cursor) query.set('cursor', cursor);
  return projectPath('management-quota', 'policy') + '?' + query;
}

/** A failed policy read or change, explained with the server's own detail. */
function policyFailure(r, writing) {
  const detail = r.detail ? ': ' + r.detail : '';
  const nothing = writing ? ' Nothing was changed.' : '';
  switch (r.status) {
    case 400:
      return `The server refused the values (400)${detail}.${nothing}`;
    case 403:
      return `Not allowed (403)${detail}.${nothing}`;
    case 503:
      return writing
        ? `The service is unavailable (503)${detail}. The change may or may not be in force: refresh to see the revision in force, and save again if needed (the same values again change nothing).`
        : `The quota policy cannot be read now (503)${detail}. The console shows no limits rather than guessing.`;
    default:
      return explain(r, writing ? 'change the quota policy' : 'read the quota policy');
  }
}

async function renderPolicy() {
  const section = $('quota-policy-section');
  if (!can('project.admin')) {
    // Only Project administrators (and global administrators) read the policy: not offered.
    policy = null;
    section.hidden = true;
    replace($('quota-policy'));
    return;
  }
  const r = await call('GET', policyQuery(null));
  // Not a Project admin (403), or a server without these routes: no policy section at all.
  if (r.status === 403 || r.status === 404 || r.status === 405) {
    policy = null;
    section.hidden = true;
    replace($('quota-policy'));
    return;
  }
  section.hidden = false;
  if (!r.ok) {
    policy = null;
    replace($('quota-policy'), notice(policyFailure(r, false), 'error'));
    return;
  }
  // Only a global administrator changes the limits: the others read them.
  const admin = me.globalAdmin;
  policy = { ...r.json, users: [...(r.json.users ?? [])], admin };
  drawPolicy();
}

/** A value for reading: the number, or what applies instead. */
function valueText(value, unset) {
  return typeof value === 'number' ? String(value) : unset;
}

function revisionText(rev) {
  return `revision ${rev.revision}, set by ${rev.setBy} at ${localTime(rev.setAtMs)}`;
}

function limitsText(map) {
  const parts = QUOTA_OPERATIONS.filter((op) => typeof (map ?? {})[op] === 'number').map((op) => `${shortOp(op)} ${map[op]}`);
  return parts.length ? parts.join(', ') : '—';
}

function limitInput(prefix, kind, op, value, label) {
  return h('input', {
    type: 'text',
    inputmode: 'numeric',
    class: 'num',
    id: `${prefix}-${kind.id}-${op}`,
    'data-operation': shortOp(op),
    'aria-label': label,
    value: typeof value === 'number' ? String(value) : '',
    placeholder: 'not set',
    spellcheck: 'false',
  });
}

function drawPolicy() {
  const p = policy;
  const project = p.project ?? null;
  const defaults = p.defaults ?? {};
  const cell = (kind, op) => {
    const value = project ? (project[kind.key] ?? {})[op] : undefined;
    if (p.admin) return limitInput('qp-project', kind, op, value, `Project ${kind.label} for ${shortOp(op)}`);
    const unset = kind.key === 'limits' ? 'not set (default)' : 'none';
    return h('span', { class: `qp-${kind.id}`, 'data-operation': shortOp(op) }, valueText(value, unset));
  };
  const projectForm = h(
    'form',
    { id: 'qp-project-form', class: 'policy-form', autocomplete: 'off', novalidate: true, onsubmit: saveProject },
    table(
      `Limits per operation (window ${duration((p.windowMs ?? 0) / 1000)})`,
      ['Operation', 'Default', 'Project limit', 'Project shadow limit'],
      QUOTA_OPERATIONS.map((op) => [
        shortOp(op),
        h('span', { class: 'qp-default', 'data-operation': shortOp(op) }, valueText(defaults[op], '—')),
        cell(KINDS[0], op),
        cell(KINDS[1], op),
      ]),
      'grid policy-limits',
    ),
    h(
      'p',
      { id: 'qp-revision' },
      project
        ? `The Project's policy: ${revisionText(project)}.`
        : "The Project has never set a policy: the defaults apply to everyone without an override.",
    ),
    p.admin
      ? h('p', { class: 'hint' }, 'An empty limit falls back to the default, an empty shadow limit means none. Whole numbers from 1 to 1000.')
      : h('p', { class: 'hint', id: 'qp-read-only' }, 'Read-only: only a global administrator changes these limits.'),
    p.admin ? h('button', { type: 'submit', id: 'qp-project-save' }, 'Review and save Project limits') : null,
    h('div', { id: 'qp-project-message', 'aria-live': 'polite' }, policyMessages.project),
  );

  const userRows = p.users.map((u) => {
    const row = [
      h('code', {}, u.userId),
      limitsText(u.limits),
      limitsText(u.shadowLimits),
      String(u.revision),
      u.setBy,
      time(u.setAtMs),
    ];
    if (p.admin) {
      row.push(h(
        'span',
        { class: 'actions' },
        h('button', { type: 'button', 'aria-label': `Edit the override of ${u.userId}`, onclick: () => editUser(u) }, 'Edit'),
        h('button', { type: 'button', class: 'reject', 'aria-label': `Remove the override of ${u.userId}`, onclick: () => removeUser(u.userId) }, 'Remove'),
      ));
    }
    return row;
  });
  const userHeaders = ['User', 'Limits', 'Shadow limits', 'Revision', 'Set by', 'Set at'];
  if (p.admin) userHeaders.push('Change');
  const users = h(
    'div',
    { id: 'qp-users' },
    p.users.length
      ? table('User overrides (in user-id order)', userHeaders, userRows, 'grid policy-users')
      : notice('No user has an override: the Project policy and the defaults apply to everyone.'),
    p.nextCursor ? h('button', { type: 'button', class: 'more', id: 'qp-users-more', onclick: () => moreUsers(p.nextCursor) }, 'Load more') : null,
  );

  const userForm = p.admin
    ? h(
      'form',
      { id: 'qp-user-form', class: 'policy-form', autocomplete: 'off', novalidate: true, onsubmit: saveUser },
      h(
        'fieldset',
        {},
        h('legend', {}, "Set one user's override"),
        h('label', { for: 'qp-user' }, 'User'),
        h('input', { id: 'qp-user', type: 'text', spellcheck: 'false', pattern: '[A-Za-z0-9._:\\-]{1,128}' }),
        table(
          'Override per operation (empty: not overridden)',
          ['Operation', 'Limit', 'Shadow limit'],
          QUOTA_OPERATIONS.map((op) => [
            shortOp(op),
            limitInput('qp-user', KINDS[0], op, null, `User limit for ${shortOp(op)}`),
            limitInput('qp-user', KINDS[1], op, null, `User shadow limit for ${shortOp(op)}`),
          ]),
          'grid policy-limits',
        ),
        h(
          'span',
          { class: 'actions' },
          h('button', { type: 'submit', id: 'qp-user-save' }, 'Review and save override'),
          h('button', { type: 'button', class: 'reject', id: 'qp-user-remove', onclick: () => removeUser($('qp-user').value.trim()) }, 'Remove override'),
        ),
        h('div', { id: 'qp-user-message', 'aria-live': 'polite' }, policyMessages.user),
      ),
    )
    : null;

  const refusals = p.shadowRefusals ?? [];
  const shadow = refusals.length
    ? table(
      'Would have been refused (shadow limits, current windows, fullest first)',
      ['User', 'Operation', 'Used', 'Shadow limit', 'Would have been refused', 'Window start'],
      refusals.map((s) => [
        h('code', {}, s.userId),
        shortOp(s.operation),
        String(s.used),
        String(s.shadowLimit),
        h('strong', {}, String(s.wouldHaveRefused)),
        time(s.windowStartMs),
      ]),
      'grid policy-shadow',
    )
    : notice('No request went over a shadow limit in the current windows.');

  replace(
    $('quota-policy'),
    h('p', { id: 'qp-who' }, p.admin
      ? 'You are a global administrator: you can change the Project limits and the user overrides.'
      : 'You are a Project administrator: you can read the quota policy; only a global administrator changes it.'),
    h('h4', {}, "Defaults and the Project's policy"),
    projectForm,
    h('h4', {}, 'User overrides'),
    users,
    userForm,
    h('h4', {}, 'Would have been refused'),
    h('div', { id: 'qp-shadow' }, shadow),
  );
}

/** "Load more": the next page of user overrides, appended. */
async function moreUsers(cursor) {
  const r = await call('GET', policyQuery(cursor));
  if (!r.ok) {
    replace($('qp-users'), notice(policyFailure(r, false), 'error'));
    return;
  }
  policy.users.push(...(r.json.users ?? []));
  policy.nextCursor = r.json.nextCursor ?? null;
  drawPolicy();
}

/**
 * The limits a form holds, checked here as the server will (whole numbers 1..1000; empty = not
 * set): {body: {limits, shadowLimits}} or {error}.
 */
function readLimits(prefix) {
  const body = { limits: {}, shadowLimits: {} };
  for (const op of QUOTA_OPERATIONS) {
    for (const kind of KINDS) {
      const input = $(`${prefix}-${kind.id}-${op}`);
      const raw = input.value.trim();
      if (raw === '') continue;
      const n = /^[0-9]{1,4}$/.test(raw) ? Number(raw) : NaN;
      if (!(n >= 1 && n <= 1000)) {
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        return { error: `The ${shortOp(op)} ${kind.label} must be a whole number from 1 to 1000, or empty. Nothing was sent.` };
      }
      input.removeAttribute('aria-invalid');
      body[kind.key][op] = n;
    }
  }
  return { body };
}

/** Every field whose value differs: {field, from, to} as text. */
function changedFields(old, next, unset) {
  const changes = [];
  for (const op of QUOTA_OPERATIONS) {
    for (const kind of KINDS) {
      const a = (old?.[kind.key] ?? {})[op];
      const b = (next?.[kind.key] ?? {})[op];
      const from = typeof a === 'number' ? a : null;
      const to = typeof b === 'number' ? b : null;
      if (from !== to) {
        changes.push({ field: `${shortOp(op)} ${kind.label}`, from: valueText(from, unset(kind, op)), to: valueText(to, unset(kind, op)) });
      }
    }
  }
  return changes;
}

/**
 * The in-page confirmation: the old and new value of every changed field. Resolves true on
 * Confirm; false on Cancel or Escape (then nothing is sent).
 */
function confirmChanges(title, changes) {
  const dialog = $('confirm-dialog');
  $('confirm-title').textContent = title;
  replace(
    $('confirm-body'),
    table('Changed fields', ['Field', 'Old value', 'New value'], changes.map((c) => [
      c.field,
      h('span', { class: 'old' }, c.from),
      h('strong', { class: 'new' }, c.to),
    ]), 'grid confirm-changes'),
  );
  return new Promise((resolve) => {
    const listening = new AbortController();
    const finish = (yes) => {
      listening.abort();
      dialog.close();
      resolve(yes);
    };
    $('confirm-ok').addEventListener('click', () => finish(true), { signal: listening.signal });
    $('confirm-cancel').addEventListener('click', () => finish(false), { signal: listening.signal });
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(false);
    }, { signal: listening.signal });
    dialog.showModal();
    $('confirm-cancel').focus();
  });
}

function setMessage(form, node) {
  policyMessages[form] = node;
  const el = $(`qp-${form}-message`);
  if (el) replace(el, node);
}

/**
 * Sends one PUT with the form busy (it answers only once the change is in force on every replica,
 * about a second), then reads the whole view again; an error stays next to the form, its inputs
 * kept.
 */
async function putLimits(form, path, body, done) {
  const formEl = $(`qp-${form}-form`);
  const controls = [...formEl.querySelectorAll('input, button')];
  formEl.setAttribute('aria-busy', 'true');
  for (const c of controls) c.disabled = true;
  setMessage(form, h('p', { class: 'notice busy', id: `qp-${form}-busy` }, 'Saving… the server answers once the change is in force on every replica (about a second).'));
  const r = await call('PUT', path, body);
  if (!r.ok) {
    formEl.removeAttribute('aria-busy');
    for (const c of controls) c.disabled = false;
    setMessage(form, notice(policyFailure(r, true), 'error'));
    return;
  }
  // Busy until the view is read again: the redrawn form carries the result.
  const text = done(r.json);
  policyMessages[form] = notice(text, 'ok');
  await renderQuota();
  status(text);
}

async function saveProject(event) {
  event.preventDefault();
  const read = readLimits('qp-project');
  if (read.error) {
    setMessage('project', notice(read.error, 'error'));
    return;
  }
  const defaults = policy.defaults ?? {};
  const changes = changedFields(policy.project, read.body, (kind, op) =>
    kind.key === 'limits' ? `not set (default ${valueText(defaults[op], '—')})` : 'none');
  if (changes.length === 0) {
    setMessage('project', notice('Nothing changed: nothing was sent.'));
    return;
  }
  setMessage('project', null);
  if (!(await confirmChanges(`Change the limits of Project ${session.project}`, changes))) {
    setMessage('project', notice('Cancelled: nothing was sent.'));
    return;
  }
  await putLimits('project', projectPath('management-quota', 'policy'), read.body, (rev) =>
    `Project limits saved: ${revisionText(rev)}, in force on every replica.`);
}

/**
 * A user's current override: from the pages read so far, else by reading on through the pages
 * after them. Resolves to the override (null if the user has none) or {error}.
 */
async function currentOverride(userId) {
  const known = policy.users.find((u) => u.userId === userId);
  if (known || !policy.nextCursor) return known ?? null;
  let cursor = policy.nextCursor;
  while (cursor) {
    const r = await call('GET', policyQuery(cursor));
    if (!r.ok) return { error: policyFailure(r, false) };
    const found = (r.json.users ?? []).find((u) => u.userId === userId);
    if (found) return found;
    cursor = r.json.nextCursor ?? null;
  }
  return null;
}

function userIdOk(userId) {
  return /^[A-Za-z0-9._:-]{1,128}$/.test(userId);
}

function editUser(u) {
  $('qp-user').value = u.userId;
  for (const op of QUOTA_OPERATIONS) {
    for (const kind of KINDS) {
      const v = (u[kind.key] ?? {})[op];
      $(`qp-user-${kind.id}-${op}`).value = typeof v === 'number' ? String(v) : '';
    }
  }
  setMessage('user', null);
  $('qp-user').focus();
}

async function saveUser(event) {
  event.preventDefault();
  const userId = $('qp-user').value.trim();
  if (!userIdOk(userId)) {
    setMessage('user', notice('The user id must be 1–128 characters of A–Z, a–z, 0–9 and . _ : -. Nothing was sent.', 'error'));
    return;
  }
  const read = readLimits('qp-user');
  if (read.error) {
    setMessage('user', notice(read.error, 'error'));
    return;
  }
  const old = await currentOverride(userId);
  if (old && old.error) {
    setMessage('user', notice(old.error, 'error'));
    return;
  }
  const changes = changedFields(old, read.body, () => 'not set');
  if (changes.length === 0) {
    setMessage('user', notice(`Nothing changed for ${userId}: nothing was sent.`));
    return;
  }
  setMessage('user', null);
  if (!(await confirmChanges(`Change the override of ${userId} in Project ${session.project}`, changes))) {
    setMessage('user', notice('Cancelled: nothing was sent.'));
    return;
  }
  await putLimits('user', projectPath('management-quota', 'users', userId), read.body, (rev) =>
    `Override of ${userId} saved: ${revisionText(rev)}, in force on every replica.`);
}

async function removeUser(userId) {
  if (!userIdOk(userId)) {
    setMessage('user', notice('Enter the user whose override to remove (1–128 characters of A–Z, a–z, 0–9 and . _ : -). Nothing was sent.', 'error'));
    return;
  }
  const old = await currentOverride(userId);
  if (old && old.error) {
    setMessage('user', notice(old.error, 'error'));
    return;
  }
  const changes = changedFields(old, null, () => 'not set');
  if (changes.length === 0) {
    setMessage('user', notice(`${userId} has no override: nothing to remove, nothing was sent.`));
    return;
  }
  setMessage('user', null);
  if (!(await confirmChanges(`Remove the override of ${userId} in Project ${session.project}`, changes))) {
    setMessage('user', notice('Cancelled: nothing was sent.'));
    return;
  }
  await putLimits('user', projectPath('management-quota', 'users', userId), {}, (rev) =>
    `Override of ${userId} removed (${revisionText(rev)}): the Project policy and the defaults apply to them again.`);
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
      time(u.windowStartMs),
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
      ? table(`Slots (database clock ${g.databaseNow ? localTime(g.databaseNow) : '—'})`, ['Slot', 'Lease', 'Generation', 'Renewed', 'Expires'],
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
    replace($('member-message'));
    status(`Member ${user} saved.`);
    renderMembers();
  } else {
    replace($('member-message'), notice(failure(r, 'change members'), 'error'));
    $('member-message').scrollIntoView({ block: 'nearest' });
  }
}

// ---- webhooks --------------------------------------------------------------------------------
//
// GET …/webhooks needs project.admin (global administrators hold it): {projectId, webhooks:
// [{projectId, webhookId, url, events, modelQuotaThresholds, createdAtMs, updatedAtMs, createdAt,
// updatedAt}]}, never a secret. GET …/webhooks/{webhookId}/deliveries?limit=&cursor=: {projectId,
// webhookId, deliveries: [{deliveryId, type, status, attempts, lastStatusCode, lastError,
// createdAtMs, nextAttemptAtMs, deliveredAtMs, …}], nextCursor}, newest first; deliveryId is the
// event id, sent as the webhook-id header on every attempt. POST …/{webhookId}/test enqueues a
// webhook.test event and answers {deliveryId}. PUT …/{webhookId} ({url, events,
// modelQuotaThresholds}) answers {webhook, secret}: 201 with the secret when created, 200 with
// secret null when an existing endpoint was replaced; POST …/{webhookId}/rotate-secret answers the
// same with the new secret (the previous one stays valid for 24 hours); DELETE …/{webhookId} 204.
// A secret is shown once, in this page only, and never read back. Without a sealing key on the
// server every route answers 503.

const WEBHOOK_EVENTS = ['approval.pending', 'approval.decided', 'proposal.published', 'model-quota.threshold', 'management-quota.rejected', 'webhook.test'];

// The secret of the last create or rotation, shown until the view is left (never stored).
let webhookSecret = null;

function webhooksFailure(r, what) {
  switch (r.status) {
    case 403:
      return `Only a Project administrator (project.admin) of ${session.project}, or a global administrator, can ${what}; this token is neither.`;
    case 404:
    case 405:
      return 'Webhooks are not available on this server.';
    case 503:
      return `Webhooks are unavailable on this server now (503)${r.detail ? ': ' + r.detail : ''}.`;
    default:
      return explain(r, what);
  }
}

const whenText = (ms) => (typeof ms === 'number' ? time(ms) : '—');

async function renderWebhooks() {
  const body = $('webhooks-body');
  replace($('wh-secret'), webhookSecret ? secretNotice(webhookSecret) : null);
  const r = await call('GET', projectPath('webhooks'));
  $('wh-form').hidden = !r.ok;
  if (!r.ok) {
    replace(body, notice(webhooksFailure(r, 'see the webhooks'), r.status === 403 ? 'warn' : 'error'));
    return;
  }
  const endpoints = r.json.webhooks ?? [];
  if (endpoints.length === 0) {
    replace(body, notice(`No webhook endpoint is registered in Project ${session.project}; register one below.`));
    return;
  }
  const thresholds = (w) => (w.events.includes('model-quota.threshold') && (w.modelQuotaThresholds ?? []).length
    ? w.modelQuotaThresholds.map(String).join(', ')
    : '—');
  replace(
    body,
    table(`Endpoints of ${session.project}`, ['Endpoint', 'URL', 'Events', 'Model-quota thresholds', 'Updated', 'Actions'], endpoints.map((w) => [
      h('code', { class: 'wh-id', 'data-webhook': w.webhookId }, w.webhookId),
      h('code', { class: 'wh-url', 'data-webhook': w.webhookId }, w.url),
      h('span', { class: 'wh-events', 'data-webhook': w.webhookId }, w.events.join(', ')),
      h('span', { class: 'wh-thresholds', 'data-webhook': w.webhookId }, thresholds(w)),
      whenText(w.updatedAtMs),
      h(
        'span',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary wh-test', 'data-webhook': w.webhookId, 'aria-label': `Send a test event to ${w.webhookId}`, onclick: (e) => sendTest(w.webhookId, e.currentTarget) }, 'Send test event'),
        h('button', { type: 'button', class: 'secondary wh-rotate', 'data-webhook': w.webhookId, 'aria-label': `Rotate the secret of ${w.webhookId}`, onclick: (e) => rotateSecret(w, e.currentTarget) }, 'Rotate secret'),
        h('button', { type: 'button', class: 'reject wh-delete', 'data-webhook': w.webhookId, 'aria-label': `Delete ${w.webhookId}`, onclick: (e) => deleteWebhook(w, e.currentTarget) }, 'Delete'),
      ),
    ]), 'grid webhooks-endpoints'),
    endpoints.map((w) => h(
      'section',
      { class: 'wh-log', 'aria-label': `Deliveries to ${w.webhookId}` },
      h('h3', {}, 'Recent deliveries to ', h('code', {}, w.webhookId)),
      h('div', { class: 'wh-deliveries', id: 'wh-deliveries-' + w.webhookId, 'data-webhook': w.webhookId }),
    )),
  );
  await Promise.all(endpoints.map((w) => renderDeliveries(w.webhookId)));
}

/** One endpoint's delivery log: the first page, then "Load more" appends the next. */
async function renderDeliveries(webhookId) {
  const container = $('wh-deliveries-' + webhookId);
  const items = [];
  const draw = (...after) => replace(
    container,
    items.length
      ? table(`Deliveries to ${webhookId}, newest first`, ['Event', 'Type', 'Status', 'Attempts', 'Last answer', 'Next attempt', 'Created', 'Delivered'], items.map((d) => [
        shortId(d.deliveryId),
        d.type,
        h('span', { class: 'state ' + d.status }, d.status),
        String(d.attempts),
        d.lastStatusCode === null || d.lastStatusCode === undefined
          ? (d.lastError ?? (d.attempts === 0 ? 'not tried yet' : '—'))
          : `HTTP ${d.lastStatusCode}${d.lastError ? ' · ' + d.lastError : ''}`,
        d.status === 'pending' ? whenText(d.nextAttemptAtMs) : '—',
        whenText(d.createdAtMs),
        whenText(d.deliveredAtMs),
      ]), 'grid webhooks-deliveries')
      : notice('No event was sent to this endpoint yet.'),
    ...after,
  );
  async function page(cursor) {
    const query = new URLSearchParams({ limit: $('webhooks-page-size').value || '50' });
    if (cursor) query.set('cursor', cursor);
    const r = await call('GET', projectPath('webhooks', webhookId, 'deliveries') + '?' + query);
    if (!r.ok) {
      draw(notice(webhooksFailure(r, 'read the delivery log'), 'error'));
      return;
    }
    items.push(...(r.json.deliveries ?? []));
    const next = r.json.nextCursor ?? null;
    draw(next ? h('button', { type: 'button', class: 'more', 'data-webhook': webhookId, onclick: () => page(next) }, 'Load more') : null);
  }
  await page(null);
}

/** The secret of a create or rotation: shown once, with a copy button. */
function secretNotice(x) {
  const copy = h('button', { type: 'button', id: 'wh-secret-copy', class: 'copy secondary', 'aria-label': 'Copy the secret' }, 'Copy');
  copy.addEventListener('click', () => copyText(x.secret, copy));
  return h(
    'div',
    { class: 'notice warn', role: 'alert' },
    h('p', {}, h('strong', {}, `The signing secret of ${x.webhookId}${x.rotated ? ' (new)' : ''}: `), h('code', { id: 'wh-secret-value' }, x.secret), ' ', copy),
    h('p', {}, x.rotated
      ? 'Store it now: it is not shown again. The previous secret stays valid for 24 hours; until then each delivery carries a signature with each.'
      : 'Store it now: it is not shown again. Verify each delivery\'s webhook-signature with it (Standard Webhooks).'),
  );
}

/** The form's values, checked as the server will check the simple things: {body, webhookId} or {error}. */
function readWebhookForm() {
  const webhookId = $('wh-new-id').value.trim();
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(webhookId)) {
    return { error: 'The endpoint id must be 1–128 characters of A–Z, a–z, 0–9 and . _ : -. Nothing was sent.' };
  }
  const url = $('wh-new-url').value.trim();
  if (!url) return { error: 'Enter the URL events are sent to. Nothing was sent.' };
  const events = WEBHOOK_EVENTS.filter((e) => $('wh-event-' + e).checked);
  if (events.length === 0) return { error: 'Choose at least one event. Nothing was sent.' };
  const body = { url, events };
  const raw = $('wh-new-thresholds').value.trim();
  if (raw) {
    const parts = raw.split(',').map((t) => t.trim());
    if (!parts.every((t) => /^(0(\.[0-9]{1,4})?|1(\.0{1,4})?|\.[0-9]{1,4})$/.test(t) && Number(t) > 0)) {
      return { error: 'Each threshold must be a fraction above 0 and at most 1 (at most 4 decimals), e.g. 0.8, 1. Nothing was sent.' };
    }
    body.modelQuotaThresholds = parts.map(Number);
  }
  return { webhookId, body };
}

async function saveWebhook(event) {
  event.preventDefault();
  const read = readWebhookForm();
  if (read.error) {
    replace($('wh-form-message'), notice(read.error, 'error'));
    return;
  }
  const r = await call('PUT', projectPath('webhooks', read.webhookId), read.body);
  if (!r.ok) {
    replace($('wh-form-message'), notice(webhooksFailure(r, 'register webhooks'), 'error'));
    $('wh-form-message').scrollIntoView({ block: 'nearest' });
    return;
  }
  replace($('wh-form-message'), null);
  if (r.status === 201 && r.json.secret) {
    webhookSecret = { webhookId: read.webhookId, secret: r.json.secret, rotated: false };
    status(`Endpoint ${read.webhookId} registered; its secret is shown once, above.`);
  } else {
    webhookSecret = null;
    status(`Endpoint ${read.webhookId} replaced; its secret is unchanged.`);
  }
  await renderWebhooks();
}

async function rotateSecret(w, button) {
  if (!(await confirmChanges(`Rotate the signing secret of ${w.webhookId}`, [
    { field: 'signing secret', from: 'the current one (valid 24 more hours)', to: 'a new one, shown once' },
  ]))) {
    status('Cancelled: nothing was sent.');
    return;
  }
  const r = await call('POST', projectPath('webhooks', w.webhookId, 'rotate-secret'));
  if (!r.ok) {
    errorNear(button, webhooksFailure(r, 'rotate a secret'));
    return;
  }
  webhookSecret = { webhookId: w.webhookId, secret: r.json.secret, rotated: true };
  status(`The secret of ${w.webhookId} was rotated; the new one is shown once, above.`);
  await renderWebhooks();
}

async function deleteWebhook(w, button) {
  if (!(await confirmChanges(`Delete the endpoint ${w.webhookId}`, [
    { field: `endpoint ${w.webhookId}`, from: w.url, to: 'removed, with its delivery log' },
  ]))) {
    status('Cancelled: nothing was sent.');
    return;
  }
  const r = await call('DELETE', projectPath('webhooks', w.webhookId));
  if (!r.ok) {
    errorNear(button, webhooksFailure(r, 'delete an endpoint'));
    return;
  }
  if (webhookSecret && webhookSecret.webhookId === w.webhookId) webhookSecret = null;
  status(`Endpoint ${w.webhookId} deleted; nothing more is sent to it.`);
  await renderWebhooks();
}

async function sendTest(webhookId, button) {
  const r = await call('POST', projectPath('webhooks', webhookId, 'test'));
  if (!r.ok) {
    errorNear(button, webhooksFailure(r, 'send a test event'));
    return;
  }
  status(`Test event ${r.json.deliveryId} enqueued for ${webhookId}; the worker delivers it shortly.`);
  await renderDeliveries(webhookId);
}

// ---- wiring ----------------------------------------------------------------------------------

const RENDER = {
  approvals: renderApprovals,
  propose: () => {},
  history: renderHistory,
  quota: () => {
    policyMessages.project = null;
    policyMessages.user = null;
    return renderQuota();
  },
  usage: renderUsage,
  gateways: renderGateways,
  members: renderMembers,
  webhooks: () => {
    webhookSecret = null;
    return renderWebhooks();
  },
};

function tick() {
  let reset = false;
  for (const el of document.querySelectorAll('.countdown')) {
    const left = (Number(el.dataset.deadline) - Date.now()) / 1000;
    if (left <= 0 && el.textContent !== 'now' && el.classList.contains('reset')) reset = true;
    el.textContent = left > 0 ? duration(left) : 'now';
  }
  // A quota window just ended: read the quota again (reading it consumes none of it). Only the
  // caller's own table: the policy's forms keep what an administrator is typing.
  if (reset && !$('view-quota').hidden) renderQuotaTable();
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
  $('policy-page-size').addEventListener('change', renderPolicy);
  $('usage-refresh').addEventListener('click', renderUsage);
  replace(
    $('wh-new-events'),
    WEBHOOK_EVENTS.map((e) => h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'wh-event-' + e, value: e }), ' ' + e)),
  );
  $('wh-form').addEventListener('submit', saveWebhook);
  $('webhooks-refresh').addEventListener('click', renderWebhooks);
  $('webhooks-page-size').addEventListener('change', renderWebhooks);
  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => show(tab.dataset.view));
  }
  setInterval(tick, 1000);
  if (session.token && session.project) resume();
  else $('token').focus();
}

init();
