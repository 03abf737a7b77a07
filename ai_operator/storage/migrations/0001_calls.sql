-- Calls and their turns (one row per call, one row per bot/caller exchange).
CREATE TABLE IF NOT EXISTS calls (
    call_id      text PRIMARY KEY,
    route        text NOT NULL,
    policy       text NOT NULL,
    caller_id    text,
    direction    text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
    started_at   timestamptz NOT NULL,
    answered_at  timestamptz,
    ended_at     timestamptz,
    ended_by     text CHECK (ended_by IN ('bot', 'caller', 'watchdog', 'system')),
    disposition  text,
    summary      jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX IF NOT EXISTS calls_started_at_idx ON calls (started_at);

CREATE TABLE IF NOT EXISTS turns (
    id           bigserial PRIMARY KEY,
    call_id      text NOT NULL REFERENCES calls (call_id) ON DELETE CASCADE,
    seq          integer NOT NULL,
    at           timestamptz NOT NULL,
    caller_text  text,
    bot_text     text,
    state        text,
    fields       jsonb NOT NULL DEFAULT '{}'::jsonb,
    tool_calls   jsonb NOT NULL DEFAULT '[]'::jsonb,
    timings      jsonb NOT NULL DEFAULT '{}'::jsonb,
    UNIQUE (call_id, seq)
);
