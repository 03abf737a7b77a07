-- What each call's RTP endpoint received, as RFC 3550 defines it (ai_operator/media/rtpstats.py): packets
-- received, expected (extended highest sequence number - first + 1, per source) and lost (expected - received;
-- negative with duplicates), and the worst source's interarrival jitter in milliseconds. Written when the call
-- ends; NULL for calls recorded before this migration or that never had a media leg.
ALTER TABLE calls ADD COLUMN IF NOT EXISTS rtp_packets_received integer;
ALTER TABLE calls ADD COLUMN IF NOT EXISTS rtp_packets_expected integer;
ALTER TABLE calls ADD COLUMN IF NOT EXISTS rtp_packets_lost integer;
ALTER TABLE calls ADD COLUMN IF NOT EXISTS rtp_jitter_ms double precision;
