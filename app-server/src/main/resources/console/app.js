// QingLong operator console: a static single-page front end over the public /v1 API.
// Plain ES modules, no build step, nothing loaded from elsewhere; it can do exactly what the
// signed-in user's permissions allow, because every action is an ordinary API call with their token.

import { call, explain, newId, projectPath, session } from './api.js';
import { duration, h, notice, replace, table } from './dom.js';

const $ = (id) => document.getElementById(id);
const PERMISSIONS = ['package.manage', 'approval.decide', 'package.read', 'model.invoke', 'model.usage.read', 'project.admin'];
const VIEWS = ['approvals', 'propose', 'history', 'quota', 'usage', 'gateways', 'members'];

// Proposals this tab has created or opened, so history and decisions work where the list route is
// missing. Kept in sessionStorage (not in URLs), per Project.
const seen = {
  key: () => 'qinglong.console.proposals.' + session.project,
  all() {
    try {
      return JSON.parse(sessionStorage.getItem(this.key()) ?? '{}');
    } catch {
      return {};
    }
  },
  put(proposal) {
    const all = this.all();
    all[proposal.proposalId] = proposal;
    sessionStorage.setItem(this.key(), JSON.stringify(all));
  },
};

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
    seen.put({ ...p, state: r.json.state, updatedAt: r.json.decidedAt ?? p.updatedAt });
    status(`Proposal ${p.proposalId} ${r.json.state} by ${r.json.decidedBy}.`);
    replace($('approval-detail'), notice(`Decision recorded: ${r.json.decision} (approval ${r.json.approvalId} is ${r.json.state}).`, 'ok'));
    renderApprovals();
  } else {
    replace($('approval-detail'), notice(failure(r, 'decide'), 'error'));
  }
}

/** GET the proposal list (DESIGN §4); null when this server has no such route. */
async function listProposals(state) {
  const query = state ? '?state=' + encodeURIComponent(state) + '&limit=100' : '?limit=100';
  const r = await call('GET', projectPath('plugin-packages', 'proposals') + query);
  if (r.status === 404 || r.status === 405) return { missing: true };
  return r;
}

async function renderApprovals() {
  const r = await listProposals('pending');
  if (r.missing) {
    const local = Object.values(seen.all()).filter((p) => p.state === 'pending');
    replace(
      $('approvals-list'),
      notice('The pending-approvals list is not available on this server (no proposal list route). Open a proposal by its id below.', 'warn'),
      local.length ? proposalTable('Pending proposals opened in this tab', local, true) : null,
    );
  } else if (r.ok) {
    const items = r.json.items ?? [];
    items.forEach((p) => seen.put(p));
    replace($('approvals-list'), items.length ? proposalTable('Pending proposals', items, true) : notice('Nothing waits for a decision.'));
  } else {
    replace($('approvals-list'), notice(failure(r, 'read proposals'), 'error'));
  }
}

async function openProposal(event) {
  event.preventDefault();
  const id = $('open-proposal').value.trim();
  // Inspection reads the proposal and its approval (it consumes the inspect quota).
  const r = await call('POST', projectPath('plugin-packages', 'proposals', id, 'inspections'), { inspectionId: newId('console') });
  if (!r.ok) {
    replace($('approval-detail'), notice(failure(r, 'inspect'), 'error'));
    return;
  }
  const p = { ...r.json.proposal, state: r.json.proposal.state };
  seen.put(p);
  const a = r.json.approval;
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
  seen.put(r.json);
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

async function renderHistory() {
  const r = await listProposals(null);
  if (r.missing) {
    const local = Object.values(seen.all()).sort((a, b) => (b.updatedAtMs ?? 0) - (a.updatedAtMs ?? 0));
    replace(
      $('history-list'),
      notice('The proposal list is not available on this server; this shows the proposals created or opened in this tab.', 'warn'),
      local.length ? proposalTable('Proposals seen in this tab', local, false) : notice('None yet.'),
    );
  } else if (r.ok) {
    const items = r.json.items ?? [];
    replace($('history-list'), items.length ? proposalTable('Proposals', items, false) : notice('No proposals in this Project.'));
  } else {
    replace($('history-list'), notice(failure(r, 'read proposals'), 'error'));
  }
}

// ---- quota -----------------------------------------------------------------------------------

/** Rows of GET …/management-quota, whether it lists operations or keys them by name. */
function quotaRows(json) {
  let ops = json.operations ?? json.items ?? json.quotas ?? json;
  if (!Array.isArray(ops)) {
    ops = Object.entries(ops)
      .filter(([, v]) => v && typeof v === 'object')
      .map(([k, v]) => ({ operation: k, ...v }));
  }
  return ops.map((o) => ({
    operation: String(o.operation ?? o.name ?? '?').replace(/^plugin-package\./, ''),
    limit: o.limit,
    used: o.used ?? o.consumed,
    remaining: o.remaining,
    reset: o.resetAtMs ?? o.resetAt ?? o.reset ?? o.windowEndsAt,
    resetSeconds: o.resetSeconds ?? o.resetInSeconds,
  }));
}

/** Browser-clock deadline (ms) of a window's reset, from seconds or a server timestamp. */
function deadline(row, skewMs) {
  if (typeof row.resetSeconds === 'number') return Date.now() + row.resetSeconds * 1000;
  const at = typeof row.reset === 'number' ? (row.reset > 1e11 ? row.reset : Date.now() + row.reset * 1000) : Date.parse(row.reset ?? '');
  return Number.isFinite(at) ? at - skewMs : null;
}

async function renderQuota() {
  const r = await call('GET', projectPath('management-quota'));
  if (r.status === 404 || r.status === 405) {
    replace($('quota-table'), notice('Your quota per operation is not available on this server (no management-quota route). Quota rejections below are explained as they happen.', 'warn'));
  } else if (!r.ok) {
    replace($('quota-table'), notice(failure(r, 'read quota'), 'error'));
  } else {
    const rows = quotaRows(r.json).map((q) => {
      const d = deadline(q, r.serverSkewMs);
      return [
        q.operation,
        String(q.limit ?? '—'),
        String(q.used ?? '—'),
        h('strong', { 'data-operation': q.operation, class: 'remaining' }, String(q.remaining ?? '—')),
        d === null ? '—' : h('span', { class: 'countdown', 'data-deadline': String(d) }, duration((d - Date.now()) / 1000)),
      ];
    });
    replace($('quota-table'), table('Quota per operation, current window', ['Operation', 'Limit', 'Used', 'Remaining', 'Window resets in'], rows));
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
    return;
  }
  if (!r.ok) {
    replace($('usage-table'), notice(failure(r, 'read model usage'), 'error'));
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
}

// ---- gateways and worker ---------------------------------------------------------------------

function renderGateways() {
  // No /v1 route exposes gateway slots, shares, leases or the worker's state (DESIGN §6/§7 keep
  // them on the management port's readiness), and the console uses only the public API.
  replace(
    $('gateways-body'),
    notice('Gateway and worker state is not available through the /v1 API on this server.', 'warn'),
    h('p', {}, 'Operators read it from ', h('code', {}, '/actuator/health/readiness'),
      ' on the management port (role; sharedDownloads: mode, slot, slots, share, lease state) and from the ',
      h('code', {}, 'qinglong_'), ' metrics in ', h('code', {}, '/actuator/prometheus'), '.'),
  );
}

// ---- members ---------------------------------------------------------------------------------

async function renderMembers() {
  const r = await call('GET', projectPath('members'));
  if (!r.ok) {
    replace($('members-table'), notice(failure(r, 'list members'), 'error'));
    return;
  }
  const members = r.json.members ?? r.json.items ?? [];
  replace(
    $('members-table'),
    table(`Members of ${session.project}`, ['User', 'Permissions'], members.map((m) => [m.userId, m.permissions.join(', ') || '(none)'])),
  );
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
  for (const el of document.querySelectorAll('.countdown')) {
    const left = (Number(el.dataset.deadline) - Date.now()) / 1000;
    el.textContent = left > 0 ? duration(left) : 'now';
  }
}

function init() {
  replace(
    $('m-permissions'),
    PERMISSIONS.map((p) => h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'perm-' + p, value: p }), ' ' + p)),
  );
  $('sign-in-form').addEventListener('submit', signIn);
  $('sign-out').addEventListener('click', signOut);
  $('open-form').addEventListener('submit', openProposal);
  $('propose-form').addEventListener('submit', propose);
  $('member-form').addEventListener('submit', saveMember);
  $('quota-refresh').addEventListener('click', renderQuota);
  $('usage-refresh').addEventListener('click', renderUsage);
  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => show(tab.dataset.view));
  }
  setInterval(tick, 1000);
  if (session.token && session.project) enter();
  else $('token').focus();
}

init();
