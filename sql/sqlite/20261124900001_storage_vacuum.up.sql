-- After 20261124900000_storage: the file gives back the pages the smaller rows and the
-- dropped index freed (SQLite keeps them for reuse otherwise). VACUUM cannot run in a
-- transaction.
VACUUM
