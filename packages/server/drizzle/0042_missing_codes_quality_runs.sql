CREATE TABLE "quality_findings" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_data_record_id" integer,
	"dept_id" integer,
	"crf_id" integer,
	"item_name" varchar(100),
	"rule_key" varchar(120) NOT NULL,
	"rule_text" text NOT NULL,
	"status" varchar(12) DEFAULT 'open' NOT NULL,
	"doubt_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quality_findings_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "quality_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"scope" jsonb NOT NULL,
	"state" varchar(12) DEFAULT 'queued' NOT NULL,
	"job_id" varchar(64),
	"records_checked" integer DEFAULT 0 NOT NULL,
	"findings_count" integer DEFAULT 0 NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"started_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "quality_runs_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "missing_codes" jsonb DEFAULT '[{"code":"ND","label":"未查"},{"code":"NA","label":"不适用"},{"code":"UNK","label":"未知"},{"code":"ASKU","label":"拒绝回答"}]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD COLUMN "missing" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "quality_findings" ADD CONSTRAINT "quality_findings_run_id_quality_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."quality_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quality_findings" ADD CONSTRAINT "quality_findings_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quality_findings" ADD CONSTRAINT "quality_findings_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quality_findings" ADD CONSTRAINT "quality_findings_crf_data_record_id_crf_data_records_id_fk" FOREIGN KEY ("crf_data_record_id") REFERENCES "public"."crf_data_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quality_findings" ADD CONSTRAINT "quality_findings_dept_id_departments_dept_id_fk" FOREIGN KEY ("dept_id") REFERENCES "public"."departments"("dept_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quality_findings" ADD CONSTRAINT "quality_findings_doubt_id_doubts_id_fk" FOREIGN KEY ("doubt_id") REFERENCES "public"."doubts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quality_runs" ADD CONSTRAINT "quality_runs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quality_runs" ADD CONSTRAINT "quality_runs_started_by_users_user_id_fk" FOREIGN KEY ("started_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quality_findings_run_rule" ON "quality_findings" USING btree ("run_id","rule_key");--> statement-breakpoint
CREATE INDEX "quality_findings_study" ON "quality_findings" USING btree ("study_id","status");--> statement-breakpoint
CREATE INDEX "quality_findings_subject" ON "quality_findings" USING btree ("subject_record_id");--> statement-breakpoint
CREATE INDEX "quality_runs_study" ON "quality_runs" USING btree ("study_id","created_at");