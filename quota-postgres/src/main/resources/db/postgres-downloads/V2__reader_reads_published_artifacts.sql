-- QingLong read gateways connect only as ql3_reader (DESIGN §6): besides their leases they read
-- Project Policy (who may download) and which artifacts a Project published, and nothing else of
-- governance: column grants name exactly the three columns the published-artifact read uses.
-- Readiness of a reader compares the applied base and shared-download versions with what it needs.
-- Runs as the schema owner after the base schema. Released migrations are never edited.

GRANT SELECT ON project_members TO ql3_reader;
GRANT SELECT (project_id, artifact_digest, state) ON plugin_package_proposals TO ql3_reader;
GRANT SELECT ON flyway_schema_history, flyway_downloads_history TO ql3_reader;
