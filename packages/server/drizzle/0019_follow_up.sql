CREATE TABLE "follow_plan_visits" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"plan_id" integer NOT NULL,
	"sort" smallint NOT NULL,
	"visit_name" varchar(50) NOT NULL,
	"offset" integer NOT NULL,
	"unit" varchar(10) NOT NULL,
	"window_before" integer DEFAULT 0 NOT NULL,
	"window_after" integer DEFAULT 0 NOT NULL,
	"repeat_every" integer,
	"repeat_until" integer,
	"responsible_user_id" integer,
	"crf_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "follow_plan_visits_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "follow_plans" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"plan_name" varchar(100) NOT NULL,
	"disease_code" varchar(50),
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"created_by" integer,
	"updated_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "follow_plans_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "follow_record_crfs" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"follow_record_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"crf_data_record_id" integer,
	"submitted_at" timestamp with time zone,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "follow_record_crfs_study_key" UNIQUE("study_id","id"),
	CONSTRAINT "follow_record_crfs_visit_crf" UNIQUE("study_id","follow_record_id","crf_id")
);
--> statement-breakpoint
CREATE TABLE "follow_records" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"plan_id" integer,
	"plan_visit_id" integer,
	"occurrence" integer DEFAULT 0 NOT NULL,
	"visit_name" varchar(80) NOT NULL,
	"planned_date" varchar(10) NOT NULL,
	"window_before" integer DEFAULT 0 NOT NULL,
	"window_after" integer DEFAULT 0 NOT NULL,
	"responsible_user_id" integer,
	"state" smallint DEFAULT 0 NOT NULL,
	"mark" varchar(10),
	"mark_reason" varchar(500),
	"completed_on" varchar(10),
	"date_modified" boolean DEFAULT false NOT NULL,
	"custom" boolean DEFAULT false NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "follow_records_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "follow_plan_visits" ADD CONSTRAINT "follow_plan_visits_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_plan_visits" ADD CONSTRAINT "follow_plan_visits_plan_id_follow_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."follow_plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_plan_visits" ADD CONSTRAINT "follow_plan_visits_responsible_user_id_users_user_id_fk" FOREIGN KEY ("responsible_user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_plans" ADD CONSTRAINT "follow_plans_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_plans" ADD CONSTRAINT "follow_plans_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_plans" ADD CONSTRAINT "follow_plans_updated_by_users_user_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_record_crfs" ADD CONSTRAINT "follow_record_crfs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_record_crfs" ADD CONSTRAINT "follow_record_crfs_follow_record_id_follow_records_id_fk" FOREIGN KEY ("follow_record_id") REFERENCES "public"."follow_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_record_crfs" ADD CONSTRAINT "follow_record_crfs_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_record_crfs" ADD CONSTRAINT "follow_record_crfs_crf_data_record_id_crf_data_records_id_fk" FOREIGN KEY ("crf_data_record_id") REFERENCES "public"."crf_data_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_records" ADD CONSTRAINT "follow_records_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_records" ADD CONSTRAINT "follow_records_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_records" ADD CONSTRAINT "follow_records_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_records" ADD CONSTRAINT "follow_records_plan_id_follow_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."follow_plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_records" ADD CONSTRAINT "follow_records_plan_visit_id_follow_plan_visits_id_fk" FOREIGN KEY ("plan_visit_id") REFERENCES "public"."follow_plan_visits"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_records" ADD CONSTRAINT "follow_records_responsible_user_id_users_user_id_fk" FOREIGN KEY ("responsible_user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_records" ADD CONSTRAINT "follow_records_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "follow_plan_visits_plan" ON "follow_plan_visits" USING btree ("plan_id");--> statement-breakpoint
CREATE INDEX "follow_plans_study" ON "follow_plans" USING btree ("study_id");--> statement-breakpoint
CREATE INDEX "follow_record_crfs_data" ON "follow_record_crfs" USING btree ("crf_data_record_id");--> statement-breakpoint
CREATE INDEX "follow_records_study_state" ON "follow_records" USING btree ("study_id","state","planned_date");--> statement-breakpoint
CREATE INDEX "follow_records_subject" ON "follow_records" USING btree ("subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "follow_records_slot" ON "follow_records" USING btree ("study_id","subject_id","plan_visit_id","occurrence") WHERE "follow_records"."plan_visit_id" is not null;