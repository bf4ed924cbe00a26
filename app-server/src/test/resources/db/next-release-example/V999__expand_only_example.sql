-- A stand-in for the next release's migration, following the upgrade policy of docs/deploy.md
-- (expand, then contract one release later): it only adds. A nullable column on a table this
-- release writes, a new table, a new index. No rename, no drop, no new NOT NULL without a
-- default, no changed CHECK: the previous release's statements all still run.
ALTER TABLE qinglong.plugin_package_proposals ADD COLUMN next_release_note text;
CREATE TABLE qinglong.next_release_example (
  id bigint PRIMARY KEY,
  note text NOT NULL
);
CREATE INDEX next_release_example_note ON qinglong.next_release_example (note);
