// Journal schema 9 (PostgreSQL): the console's switches, an append-only audit (who, when, what)
// from which every instance of a fleet reads the switches' state (ops/opsSwitchStore.ts).
export const opsAuditDdl = `
CREATE TABLE ops_audit (
  id BIGSERIAL PRIMARY KEY,
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  actor TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'drain', 'undrain', 'retry')),
  target TEXT NOT NULL,
  detail TEXT
);
`
