CREATE TABLE "patient_bind_codes" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"code_hash" varchar(64) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patient_bind_codes_study_key" UNIQUE("study_id","id"),
	CONSTRAINT "patient_bind_codes_hash" UNIQUE("study_id","code_hash")
);
--> statement-breakpoint
CREATE TABLE "patient_disease_notes" (
	"study_id" integer NOT NULL,
	"disease_code" varchar(50) NOT NULL,
	"title" varchar(100) NOT NULL,
	"content" text NOT NULL,
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patient_disease_notes_study_id_disease_code_pk" PRIMARY KEY("study_id","disease_code")
);
--> statement-breakpoint
CREATE TABLE "patient_portal_settings" (
	"study_id" integer PRIMARY KEY NOT NULL,
	"bind_enabled" boolean DEFAULT true NOT NULL,
	"app_id" varchar(40),
	"welcome" varchar(500),
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "patient_reported_crfs" (
	"study_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patient_reported_crfs_study_id_crf_id_pk" PRIMARY KEY("study_id","crf_id")
);
--> statement-breakpoint
CREATE TABLE "patient_sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"token_hash" varchar(64) NOT NULL,
	"open_id" varchar(100) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patient_sessions_study_key" UNIQUE("study_id","id"),
	CONSTRAINT "patient_sessions_token" UNIQUE("study_id","token_hash")
);
--> statement-breakpoint
ALTER TABLE "patient_bind_codes" ADD CONSTRAINT "patient_bind_codes_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_bind_codes" ADD CONSTRAINT "patient_bind_codes_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_bind_codes" ADD CONSTRAINT "patient_bind_codes_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_disease_notes" ADD CONSTRAINT "patient_disease_notes_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_disease_notes" ADD CONSTRAINT "patient_disease_notes_updated_by_users_user_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_portal_settings" ADD CONSTRAINT "patient_portal_settings_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_portal_settings" ADD CONSTRAINT "patient_portal_settings_updated_by_users_user_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_reported_crfs" ADD CONSTRAINT "patient_reported_crfs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_reported_crfs" ADD CONSTRAINT "patient_reported_crfs_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_sessions" ADD CONSTRAINT "patient_sessions_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_sessions" ADD CONSTRAINT "patient_sessions_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "patient_bind_codes_live" ON "patient_bind_codes" USING btree ("study_id","subject_id") WHERE "patient_bind_codes"."used_at" is null and "patient_bind_codes"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "patient_sessions_subject" ON "patient_sessions" USING btree ("study_id","subject_id");