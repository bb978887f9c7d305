CREATE TABLE "study_locks" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"scope" varchar(10) NOT NULL,
	"target_id" integer DEFAULT 0 NOT NULL,
	"reason" varchar(500) NOT NULL,
	"locked_by" integer NOT NULL,
	"locked_by_name" varchar(50) NOT NULL,
	"locked_at" timestamp with time zone NOT NULL,
	"chain_head" varchar(64),
	"unlocked_by" integer,
	"unlocked_at" timestamp with time zone,
	"unlock_reason" varchar(500),
	CONSTRAINT "study_locks_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "study_personnel" ADD COLUMN "site_ids" integer[];--> statement-breakpoint
ALTER TABLE "study_locks" ADD CONSTRAINT "study_locks_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_locks" ADD CONSTRAINT "study_locks_locked_by_users_user_id_fk" FOREIGN KEY ("locked_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_locks" ADD CONSTRAINT "study_locks_unlocked_by_users_user_id_fk" FOREIGN KEY ("unlocked_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "study_locks_live" ON "study_locks" USING btree ("study_id","scope","target_id") WHERE "study_locks"."unlocked_at" is null;--> statement-breakpoint
CREATE INDEX "study_locks_study" ON "study_locks" USING btree ("study_id");--> statement-breakpoint
-- Multi-centre (issue 32) adds two study buttons. A study administrator role (项目管理员) holds every study permission
-- (allStudyPermissionKeys): roles made before these keys existed are given them, once. Other roles are not: a member
-- is scoped to their own sites until a manager grants 查看全部中心数据 to the roles that need it (monitors, data managers).
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.subject.allSites"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.subject.allSites');--> statement-breakpoint
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.lock"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.lock');
--> statement-breakpoint
-- A member's site scope includes the sub-departments of their sites: a change to the tree changes what they see.
CREATE TRIGGER "departments_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "departments" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();
