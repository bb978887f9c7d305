CREATE TABLE "message_opt_outs" (
	"study_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"source" varchar(10) NOT NULL,
	"reason" varchar(500),
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_opt_outs_study_id_subject_id_pk" PRIMARY KEY("study_id","subject_id")
);
--> statement-breakpoint
CREATE TABLE "message_rules" (
	"study_id" integer PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"channel" varchar(10) DEFAULT 'sms' NOT NULL,
	"days_before" smallint DEFAULT 3,
	"remind_first_day" boolean DEFAULT true NOT NULL,
	"remind_overdue" boolean DEFAULT true NOT NULL,
	"invite_pro" boolean DEFAULT true NOT NULL,
	"remind_again_days" smallint DEFAULT 3,
	"quiet_start" varchar(5) DEFAULT '21:00' NOT NULL,
	"quiet_end" varchar(5) DEFAULT '08:00' NOT NULL,
	"templates" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "patient_messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"kind" varchar(20) NOT NULL,
	"channel" varchar(10) NOT NULL,
	"provider" varchar(20),
	"recipient" varchar(100) NOT NULL,
	"follow_record_id" integer,
	"crf_id" integer,
	"dedupe_key" varchar(120) NOT NULL,
	"template_key" varchar(40) NOT NULL,
	"content" text NOT NULL,
	"state" varchar(12) DEFAULT 'queued' NOT NULL,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"not_before" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"provider_message_id" varchar(100),
	"provider_answer" jsonb,
	"error" varchar(500),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patient_messages_occasion" UNIQUE("study_id","dedupe_key"),
	CONSTRAINT "patient_messages_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "message_opt_outs" ADD CONSTRAINT "message_opt_outs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_opt_outs" ADD CONSTRAINT "message_opt_outs_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_opt_outs" ADD CONSTRAINT "message_opt_outs_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_rules" ADD CONSTRAINT "message_rules_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_rules" ADD CONSTRAINT "message_rules_updated_by_users_user_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_messages" ADD CONSTRAINT "patient_messages_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_messages" ADD CONSTRAINT "patient_messages_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_messages" ADD CONSTRAINT "patient_messages_follow_record_id_follow_records_id_fk" FOREIGN KEY ("follow_record_id") REFERENCES "public"."follow_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_messages" ADD CONSTRAINT "patient_messages_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "patient_messages_subject" ON "patient_messages" USING btree ("subject_id","created_at");--> statement-breakpoint
CREATE INDEX "patient_messages_due" ON "patient_messages" USING btree ("state","not_before");--> statement-breakpoint
-- 患者提醒 (issue 38) adds a study button. A study administrator role (项目管理员) holds every study permission
-- (allStudyPermissionKeys): roles made before this key existed are given it, once.
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.messages"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.messages');
