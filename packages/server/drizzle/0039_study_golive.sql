-- 上线 (issue 36) adds a study button. A study administrator role (项目管理员) holds every study permission
-- (allStudyPermissionKeys): roles made before this key existed are given it, once.
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.study.golive"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.study.golive');--> statement-breakpoint
-- The application role may not delete from the audit trail at all (client.ts APPEND_ONLY_TABLES). The go-live purge
-- removes a study's rows about test data through this function, run with its owner's rights in the purge's own
-- transaction; the append-only trigger still lets only test rows without a hash go.
CREATE FUNCTION "purge_test_audit_rows"(study integer) RETURNS integer LANGUAGE sql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
  WITH purged AS (DELETE FROM audit_events WHERE study_id = study AND test AND hash IS NULL RETURNING 1)
  SELECT count(*)::int FROM purged
$$;
