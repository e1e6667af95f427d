// The operator console's page: no framework (a dozen tables redrawn from one snapshot need none,
// and nothing to build or update keeps it small and reviewable). The key lives in this closure only
// and goes in Authorization on every call, the live feed included (fetch with a streamed body:
// EventSource cannot send headers). Every value is set with textContent, never as HTML: revert
// reasons, return data and endpoint errors are written by strangers.
;(() => {
  const MAX_INFLIGHT = 500
  /** The server's OPS_SETTLED_SHOWN, from the first snapshot on. */
  let maxSettled = 20
  const $ = (id) => document.getElementById(id)
  let key = ''
  let state
  let generation = 0
  const inflight = new Map()
  let settled = []

  const say = (text) => ($('status').textContent = text)
  const alarm = (text) => {
    const el = $('alert')
    el.textContent = text || ''
    el.hidden = !text
  }
  const el = (tag, text, cls) => {
    const node = document.createElement(tag)
    if (text !== undefined && text !== null) node.textContent = String(text)
    if (cls) node.className = cls
    return node
  }
  const short = (v) => (typeof v === 'string' && v.length > 14 ? `${v.slice(0, 8)}…${v.slice(-4)}` : v)
  const cell = (value, cls, full) => {
    const td = el('td', value === undefined || value === null || value === '' ? '—' : value, cls)
    if (full) td.title = String(full)
    return td
  }

  /** A table of rows; `columns`: [header, (row) => td]. The caption names it for screen readers. */
  function table(id, caption, columns, rows, empty) {
    const box = $(id)
    const t = el('table')
    t.appendChild(el('caption', caption))
    const head = el('tr')
    for (const [name] of columns) {
      const th = el('th', name)
      th.scope = 'col'
      head.appendChild(th)
    }
    t.appendChild(el('thead')).appendChild(head)
    const body = t.appendChild(el('tbody'))
    for (const row of rows) {
      const tr = el('tr')
      if (row.__key) tr.dataset.key = row.__key
      for (const [, render] of columns) tr.appendChild(render(row))
      body.appendChild(tr)
    }
    if (rows.length === 0) {
      const tr = el('tr')
      const td = el('td', empty || 'none', 'empty')
      td.colSpan = columns.length
      tr.appendChild(td)
      body.appendChild(tr)
    }
    box.replaceChildren(t)
  }

  async function call(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      cache: 'no-store',
      credentials: 'omit',
    })
    const json = await response.json().catch(() => ({}))
    if (!response.ok)
      throw Object.assign(new Error(json.title ? `${json.title}: ${json.detail || ''}` : `HTTP ${response.status}`), {
        status: response.status,
      })
    return json
  }

  function switchButton(label, path, name) {
    const b = el('button', label)
    b.type = 'button'
    b.setAttribute('aria-label', `${label} ${name}`)
    b.addEventListener('click', async () => {
      b.disabled = true
      try {
        const answer = await call('POST', path, {})
        say(`${label}: ${name} — ${answer.changed ? 'done' : 'already so'} (${new Date().toLocaleTimeString()})`)
        alarm('')
        await refresh()
      } catch (err) {
        alarm(`${label} ${name} refused: ${err.message}`)
      } finally {
        b.disabled = false
      }
    })
    return b
  }
  const withButton = (button) => {
    const td = el('td')
    td.appendChild(button)
    return td
  }
  const formatUnits = (raw, decimals) => {
    if (raw === undefined || raw === null) return undefined
    const n = Number(raw) / 10 ** decimals
    return n.toLocaleString(undefined, { maximumFractionDigits: 6 })
  }

  /** Redrawn at most once a frame however fast the feed runs (and not at all in a hidden tab). */
  let drawing = false
  function render() {
    if (drawing) return
    drawing = true
    requestAnimationFrame(() => {
      drawing = false
      draw()
    })
  }
  function draw() {
    if (!state) return
    const s = state
    $('summary').textContent =
      `Instance ${s.instanceId}${s.draining ? ' (DRAINED)' : ''} · ${s.intents.inFlightCount} in flight · ${s.paused.length} chain(s) paused · updated ${new Date(s.at).toLocaleTimeString()}`
    table(
      'chains',
      'Every chain served, its endpoints and its pause switch',
      [
        ['Chain', (c) => cell(`${c.name} (${c.chainId})`)],
        [
          'State',
          (c) =>
            c.paused
              ? cell(`PAUSED by ${c.paused.actor}`, 'bad')
              : c.available
                ? cell('up', 'ok')
                : cell(`down: ${c.unavailableReason || ''}`, 'bad'),
        ],
        [
          'Finality',
          (c) =>
            cell(
              c.finality.rule === 'depth'
                ? `${c.finality.confirmations} block(s) deep`
                : c.finality.rule === 'commitment'
                  ? `${c.finality.commitment} commitment`
                  : 'certified effects',
              undefined,
              c.finality.description,
            ),
        ],
        ['Head', (c) => cell(c.headBlock === undefined ? 'unknown' : c.headBlock, 'mono')],
        [
          'Endpoints',
          (c) =>
            cell(
              c.endpoints
                .map((e) => `${e.url} ${e.status}${e.latencyMs !== undefined ? ` ${e.latencyMs} ms` : ''}`)
                .join(' · '),
              'wrap mono',
            ),
        ],
        [
          'Switch',
          (c) =>
            withButton(
              c.paused
                ? switchButton('Resume', `/ops/chains/${encodeURIComponent(c.chainId)}/resume`, c.chainId)
                : switchButton('Pause', `/ops/chains/${encodeURIComponent(c.chainId)}/pause`, c.chainId),
            ),
        ],
      ],
      s.chains.map((c) => ({ ...c, __key: c.chainId })),
    )
    const keys = s.chains.flatMap((c) =>
      c.relayers.map((r) => ({ ...r, chain: c, __key: `${c.chainId} ${r.address}` })),
    )
    table(
      'relayers',
      'Relayer keys: balance, runway at the chain’s current spend, nonce (this instance’s next / mined on chain), sends in flight, lease',
      [
        ['Chain', (r) => cell(r.chain.chainId)],
        ['Address', (r) => cell(r.address, 'mono')],
        [
          'Balance',
          (r) => {
            const wei = r.balance ?? r.chain.relayerBalance
            return cell(
              wei === undefined ? undefined : `${formatUnits(wei, r.chain.decimals)} ${r.chain.currency}`,
              'balance',
            )
          },
        ],
        [
          'Runway',
          (r) =>
            r.chain.runwayHours === undefined
              ? cell('no spend seen')
              : cell(`${r.chain.runwayHours} h`, r.chain.runwayHours < 24 ? 'bad' : undefined),
        ],
        ['Funded', (r) => cell(r.funded ? 'yes' : 'NO', r.funded ? 'ok' : 'bad')],
        [
          'Budget',
          (r) =>
            r.chain.budget === undefined
              ? cell('no budget')
              : cell(
                  `${formatUnits(r.chain.budget.spent, r.chain.decimals)} spent, ${formatUnits(r.chain.budget.left, r.chain.decimals)} left (chain, ${r.chain.budget.windowSeconds} s)`,
                  r.chain.budget.left === '0' ? 'bad' : undefined,
                ),
        ],
        [
          'Nonce',
          (r) =>
            cell(
              `${r.nonce === undefined ? '–' : r.nonce} / ${r.onChainNonce === undefined ? '–' : r.onChainNonce}`,
              r.nonce !== undefined && r.onChainNonce !== undefined && r.nonce - r.onChainNonce > 16
                ? 'bad mono'
                : 'mono',
            ),
        ],
        ['In flight', (r) => cell(r.inFlight)],
        ['Lease', (r) => cell(r.held ? `held here (${s.instanceId})` : r.leaseHolder)],
      ],
      keys,
    )
    const flights = [...inflight.values()].sort((a, b) => b.ageSeconds - a.ageSeconds)
    table(
      'inflight',
      'Intents in flight, oldest first; stuck ones marked',
      [
        ['Intent', (i) => cell(short(i.intentHash), 'mono', i.intentHash)],
        ['State', (i) => cell(i.stuck ? `${i.state} — STUCK` : i.state, i.stuck ? 'bad' : 'warn')],
        ['Age', (i) => cell(`${i.ageSeconds} s`)],
        ['Chain', (i) => cell(i.chainId)],
        ['Key', (i) => cell(short(i.relayer), 'mono', i.relayer)],
        ['Nonce', (i) => cell(i.nonce)],
        ['Transaction', (i) => cell(short(i.transaction), 'mono', i.transaction)],
        [
          'Fee bump',
          (i) =>
            i.transaction
              ? withButton(
                  switchButton(
                    'Retry now',
                    `/ops/transactions/${encodeURIComponent(i.transaction)}/retry`,
                    i.transaction,
                  ),
                )
              : cell(),
        ],
      ],
      flights.map((i) => ({ ...i, __key: i.intentHash })),
      'nothing in flight',
    )
    table(
      'settled',
      `The last ${maxSettled} settled`,
      [
        ['Intent', (i) => cell(short(i.intentHash), 'mono', i.intentHash)],
        ['State', (i) => cell(`${i.state}${i.final ? '' : ' (not final)'}`, i.state === 'mined' ? 'ok' : 'bad')],
        ['Status', (i) => cell(i.status, 'mono')],
        ['Chain', (i) => cell(i.chainId)],
        ['Block', (i) => cell(i.blockNumber)],
        ['Transaction', (i) => cell(short(i.transaction), 'mono', i.transaction)],
        ['Detail', (i) => cell(i.detail, 'wrap')],
      ],
      settled.map((i) => ({ ...i, __key: i.intentHash })),
    )
    table(
      'payments',
      `Reserved or pending payments (${s.paymentsCount})`,
      [
        ['Id', (p) => cell(p.id)],
        ['Network', (p) => cell(p.network)],
        ['Route', (p) => cell(p.route)],
        ['Amount', (p) => cell(p.amount)],
        ['State', (p) => cell(p.state)],
        ['Intent', (p) => cell(short(p.intentHash), 'mono', p.intentHash)],
        ['Reason', (p) => cell(p.reason, 'wrap')],
      ],
      s.payments,
    )
    table(
      'webhooks',
      'Undelivered webhook events per endpoint (origin and a hash of the path)',
      [
        ['Endpoint', (w) => cell(`${w.endpoint} ${w.endpointPath}`, 'mono')],
        ['Pending', (w) => cell(w.pending, w.pending > 0 ? 'warn' : undefined)],
        ['Given up', (w) => cell(w.givenUp, w.givenUp > 0 ? 'bad' : undefined)],
        ['Oldest', (w) => cell(w.oldestAt && new Date(w.oldestAt).toLocaleString())],
        ['Last error', (w) => cell(w.lastError, 'wrap')],
      ],
      s.webhooks,
      'no backlog',
    )
    table(
      'throttled',
      'Clients answered 429 in the last hour on this instance',
      [
        ['Client', (t) => cell(t.client, 'mono')],
        ['Where', (t) => cell(t.reason)],
        ['Times', (t) => cell(t.count)],
        ['Last', (t) => cell(new Date(t.lastAt).toLocaleTimeString())],
        ['Retry-After', (t) => cell(t.retryAfterSeconds === undefined ? undefined : `${t.retryAfterSeconds} s`)],
      ],
      s.throttled.map((t) => ({ ...t, __key: t.client })),
      'nobody throttled',
    )
    table(
      'refusals',
      `Budget refusals in the last hour (${s.budgetRefusalsLastHour})`,
      [
        ['When', (r) => cell(new Date(r.at).toLocaleTimeString())],
        ['Client', (r) => cell(r.client, 'mono')],
        ['Reason', (r) => cell(r.reason)],
        ['Detail', (r) => cell(r.detail, 'wrap')],
      ],
      s.budgetRefusals,
    )
    table(
      'fleet',
      'Instances sharing the journal, their heartbeats and keys',
      [
        ['Instance', (f) => cell(`${f.instanceId}${f.instanceId === s.instanceId ? ' (this one)' : ''}`)],
        ['Heartbeat', (f) => cell(f.live ? 'live' : 'lapsed', f.live ? 'ok' : 'bad')],
        ['Until', (f) => cell(f.heartbeatExpiresAt && new Date(f.heartbeatExpiresAt).toLocaleTimeString())],
        ['Keys held', (f) => cell(f.keys.map((k) => `${k.chainId} ${short(k.relayer)}`).join(', '), 'wrap mono')],
        [
          'Drain',
          (f) =>
            withButton(
              f.draining
                ? switchButton('Undrain', `/ops/instances/${encodeURIComponent(f.instanceId)}/undrain`, f.instanceId)
                : switchButton('Drain', `/ops/instances/${encodeURIComponent(f.instanceId)}/drain`, f.instanceId),
            ),
        ],
      ],
      s.fleet.map((f) => ({ ...f, __key: f.instanceId })),
    )
    table(
      'audit',
      'The last switches taken: who, when, what',
      [
        ['When', (a) => cell(new Date(a.at).toLocaleString())],
        ['Who', (a) => cell(a.actor, 'mono')],
        ['What', (a) => cell(a.action)],
        ['Target', (a) => cell(a.target)],
        ['Reason', (a) => cell(a.detail, 'wrap')],
      ],
      s.audit,
    )
  }

  function takeState(next) {
    state = next
    inflight.clear()
    for (const i of next.intents.inFlight.slice(0, MAX_INFLIGHT)) inflight.set(`${i.chainId} ${i.intentHash}`, i)
    maxSettled = next.intents.settledShown || maxSettled
    settled = next.intents.settled.slice(0, maxSettled)
    render()
  }
  function takeIntent(i) {
    const id = `${i.chainId} ${i.intentHash}`
    if (i.state === 'claimed' || i.state === 'pending') {
      if (inflight.has(id) || inflight.size < MAX_INFLIGHT) inflight.set(id, i)
    } else {
      inflight.delete(id)
      settled = [i, ...settled.filter((s) => `${s.chainId} ${s.intentHash}` !== id)].slice(0, maxSettled)
    }
    render()
  }

  async function refresh() {
    takeState(await call('GET', '/ops/state'))
  }

  /** The feed: SSE frames read from a fetch body; reconnects with a growing delay while the key is good. */
  async function follow(mine) {
    let delay = 1000
    while (mine === generation) {
      try {
        const response = await fetch('/ops/events', {
          headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
          cache: 'no-store',
          credentials: 'omit',
        })
        if (response.status === 401 || response.status === 403) {
          const json = await response.json().catch(() => ({}))
          return stop(`Refused: ${json.title || response.status}`)
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`)
        say('Live.')
        delay = 1000
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ''
        while (mine === generation) {
          const { value, done } = await reader.read()
          if (done) break
          buffer += value
          let end = buffer.indexOf('\n\n')
          while (end >= 0) {
            const frame = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            end = buffer.indexOf('\n\n')
            let event = 'message'
            let data = ''
            for (const line of frame.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7)
              else if (line.startsWith('data: ')) data += line.slice(6)
            }
            if (!data) continue
            const parsed = JSON.parse(data)
            if (event === 'state') takeState(parsed)
            else if (event === 'intent') takeIntent(parsed)
          }
          // A frame never grows without bound: the server's frames are small.
          if (buffer.length > 4_000_000) buffer = ''
        }
        reader.cancel().catch(() => {})
      } catch (err) {
        say(`Feed interrupted (${err.message}); reconnecting…`)
      }
      await new Promise((r) => setTimeout(r, delay))
      delay = Math.min(delay * 2, 30_000)
    }
  }

  function stop(message) {
    generation++
    key = ''
    state = undefined
    $('console').hidden = true
    $('connect').hidden = false
    alarm(message)
    say('Not connected.')
  }

  $('connect').addEventListener('submit', async (event) => {
    event.preventDefault()
    const input = $('key')
    key = input.value.trim()
    input.value = ''
    alarm('')
    say('Connecting…')
    try {
      await refresh()
    } catch (err) {
      return stop(`Refused: ${err.message}`)
    }
    $('connect').hidden = true
    $('console').hidden = false
    follow(++generation)
  })
})()
