-- The lead status a converted lead takes (ConvertLead), as the won and lost flags mark the
-- stages: a flag, so the status keeps its role when renamed or named in another language.
ALTER TABLE lead_masters ADD COLUMN is_converted boolean NOT NULL DEFAULT false;
UPDATE lead_masters SET is_converted = true WHERE kind = 'status' AND name = 'Converted';
