CREATE TABLE "double_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"crf_version" integer NOT NULL,
	"crf_data_record_id" integer,
	"entry_no" smallint NOT NULL,
	"values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"missing" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state" varchar(12) DEFAULT 'draft' NOT NULL,
	"user_id" integer NOT NULL,
	"user_name" varchar(80) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reconciled_at" timestamp with time zone,
	"reconciled_by" integer,
	"decisions" jsonb,
	CONSTRAINT "double_entries_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "lab_reference_ranges" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"analyte" varchar(40) NOT NULL,
	"analyte_name" text,
	"unit" varchar(30),
	"sex" smallint,
	"age_min" numeric,
	"age_max" numeric,
	"lower" numeric,
	"upper" numeric,
	"effective_from" date NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lab_reference_ranges_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "crfs" ADD COLUMN "double_entry" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD COLUMN "lab_ranges" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "double_entries" ADD CONSTRAINT "double_entries_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "double_entries" ADD CONSTRAINT "double_entries_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "double_entries" ADD CONSTRAINT "double_entries_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "double_entries" ADD CONSTRAINT "double_entries_crf_data_record_id_crf_data_records_id_fk" FOREIGN KEY ("crf_data_record_id") REFERENCES "public"."crf_data_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "double_entries" ADD CONSTRAINT "double_entries_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "double_entries" ADD CONSTRAINT "double_entries_reconciled_by_users_user_id_fk" FOREIGN KEY ("reconciled_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_reference_ranges" ADD CONSTRAINT "lab_reference_ranges_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_reference_ranges" ADD CONSTRAINT "lab_reference_ranges_site_id_departments_dept_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."departments"("dept_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_reference_ranges" ADD CONSTRAINT "lab_reference_ranges_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "double_entries_open" ON "double_entries" USING btree ("subject_record_id","crf_id",coalesce("crf_data_record_id", 0),"entry_no") WHERE "double_entries"."reconciled_at" is null;--> statement-breakpoint
CREATE INDEX "double_entries_study" ON "double_entries" USING btree ("study_id","crf_id");--> statement-breakpoint
CREATE INDEX "lab_reference_ranges_lookup" ON "lab_reference_ranges" USING btree ("study_id","site_id","analyte","effective_from");--> statement-breakpoint
-- One active dictionary of each kind per study: where two were active, the latest loaded stays active.
UPDATE "coding_dictionaries" d SET "active" = false
WHERE d."active" AND EXISTS (
  SELECT 1 FROM "coding_dictionaries" n
  WHERE n."study_id" = d."study_id" AND n."kind" = d."kind" AND n."active" AND n."id" > d."id"
);--> statement-breakpoint
CREATE UNIQUE INDEX "coding_dictionaries_one_active" ON "coding_dictionaries" USING btree ("study_id","kind") WHERE "coding_dictionaries"."active";--> statement-breakpoint
-- 编码审核, 双录入核对 and 参考范围 (issue 37) add study buttons. A study administrator role (项目管理员) holds every
-- study permission (allStudyPermissionKeys): roles made before these keys existed are given them, once.
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.coding.approve"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.coding.approve');--> statement-breakpoint
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.doubleEntry.reconcile"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.doubleEntry.reconcile');--> statement-breakpoint
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.labRanges"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.labRanges');
