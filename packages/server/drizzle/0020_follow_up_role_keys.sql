-- Follow-up (issue 14) adds two study buttons. A study administrator role (项目管理员) holds every study permission
-- (allStudyPermissionKeys): roles made before these keys existed are given them, once.
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.follow.plan", "btn:business.follow.record"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.follow.plan');
