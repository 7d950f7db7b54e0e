-- The lead status a converted lead takes (ConvertLead), as the won and lost flags mark the
-- stages: a flag, so the status keeps its role when renamed or named in another language.
ALTER TABLE lead_masters ADD COLUMN is_converted BOOLEAN NOT NULL DEFAULT 0;
UPDATE lead_masters SET is_converted = 1 WHERE kind = 'status' AND name = 'Converted';
