CREATE TABLE "audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer,
	"crf_data_record_id" integer,
	"crf_id" integer,
	"crf_version" integer,
	"action" varchar(40) NOT NULL,
	"item_name" varchar(100),
	"old_value" jsonb,
	"new_value" jsonb,
	"reason" text,
	"user_id" integer NOT NULL,
	"user_name" varchar(80) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crf_data_records" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"crf_version" integer NOT NULL,
	"state" smallint DEFAULT 1 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"sdv" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_request_id" varchar(64),
	"created_by" integer,
	"updated_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"submitted_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "print_templates" (
	"crf_id" integer PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"file_name" varchar(255) NOT NULL,
	"content" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signatures" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"signer_name" varchar(80) NOT NULL,
	"meaning" varchar(200) NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"invalidated_at" timestamp with time zone,
	"invalidated_reason" varchar(300)
);
--> statement-breakpoint
CREATE TABLE "stored_files" (
	"file_key" varchar(64) PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"file_name" varchar(255) NOT NULL,
	"content_type" varchar(100) NOT NULL,
	"size" bigint NOT NULL,
	"sha256" varchar(64) NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subject_records" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"state" smallint DEFAULT 0 NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "subjects" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"identification_code" varchar(50) NOT NULL,
	"subject_name" varchar(50) NOT NULL,
	"gender" smallint NOT NULL,
	"birth" varchar(10),
	"mobile" varchar(20),
	"disease_code" varchar(50) NOT NULL,
	"open_id" varchar(100),
	"qr_code" varchar(64) NOT NULL,
	"dept_id" integer,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD CONSTRAINT "crf_data_records_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD CONSTRAINT "crf_data_records_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD CONSTRAINT "crf_data_records_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD CONSTRAINT "crf_data_records_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD CONSTRAINT "crf_data_records_updated_by_users_user_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "print_templates" ADD CONSTRAINT "print_templates_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signatures" ADD CONSTRAINT "signatures_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signatures" ADD CONSTRAINT "signatures_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subject_records" ADD CONSTRAINT "subject_records_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subject_records" ADD CONSTRAINT "subject_records_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subject_records" ADD CONSTRAINT "subject_records_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_dept_id_departments_dept_id_fk" FOREIGN KEY ("dept_id") REFERENCES "public"."departments"("dept_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_record" ON "audit_events" USING btree ("crf_data_record_id","item_name");--> statement-breakpoint
CREATE INDEX "audit_events_subject" ON "audit_events" USING btree ("subject_record_id");--> statement-breakpoint
CREATE INDEX "audit_events_study" ON "audit_events" USING btree ("study_id","id");--> statement-breakpoint
CREATE INDEX "crf_data_records_subject" ON "crf_data_records" USING btree ("subject_record_id","crf_id");--> statement-breakpoint
CREATE INDEX "crf_data_records_study" ON "crf_data_records" USING btree ("study_id");--> statement-breakpoint
CREATE INDEX "signatures_subject" ON "signatures" USING btree ("subject_record_id");--> statement-breakpoint
CREATE INDEX "stored_files_study" ON "stored_files" USING btree ("study_id");--> statement-breakpoint
CREATE UNIQUE INDEX "subject_records_subject" ON "subject_records" USING btree ("subject_id");--> statement-breakpoint
CREATE INDEX "subject_records_study" ON "subject_records" USING btree ("study_id");--> statement-breakpoint
CREATE UNIQUE INDEX "subjects_code_live" ON "subjects" USING btree ("study_id","identification_code") WHERE "subjects"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "subjects_study" ON "subjects" USING btree ("study_id");