CREATE TABLE "sae_reports" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_data_record_id" integer NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"kind" varchar(12) DEFAULT 'initial' NOT NULL,
	"aware_at" timestamp with time zone NOT NULL,
	"deadline_at" timestamp with time zone NOT NULL,
	"state" varchar(12) DEFAULT 'pending' NOT NULL,
	"content" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"submitted_at" timestamp with time zone,
	"submitted_by" integer,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sae_reports_record_version" UNIQUE("crf_data_record_id","version"),
	CONSTRAINT "sae_reports_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "ae_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "ae_crf_id" integer;--> statement-breakpoint
ALTER TABLE "sae_reports" ADD CONSTRAINT "sae_reports_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sae_reports" ADD CONSTRAINT "sae_reports_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sae_reports" ADD CONSTRAINT "sae_reports_crf_data_record_id_crf_data_records_id_fk" FOREIGN KEY ("crf_data_record_id") REFERENCES "public"."crf_data_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sae_reports" ADD CONSTRAINT "sae_reports_submitted_by_users_user_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sae_reports" ADD CONSTRAINT "sae_reports_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sae_reports_study_state" ON "sae_reports" USING btree ("study_id","state","deadline_at");--> statement-breakpoint
CREATE INDEX "sae_reports_subject" ON "sae_reports" USING btree ("subject_record_id");--> statement-breakpoint
-- 数据核查 and 安全性报告 (issue 37) add study buttons. A study administrator role (项目管理员) holds every study
-- permission (allStudyPermissionKeys): roles made before these keys existed are given them, once.
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.quality"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.quality');--> statement-breakpoint
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.safety"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.safety');
