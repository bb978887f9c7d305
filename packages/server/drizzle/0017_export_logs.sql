CREATE TABLE "export_logs" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"job_id" uuid NOT NULL,
	"user_id" integer NOT NULL,
	"user_name" varchar(80) NOT NULL,
	"api" varchar(4) NOT NULL,
	"format" varchar(20) NOT NULL,
	"options" jsonb NOT NULL,
	"state" varchar(12) DEFAULT 'running' NOT NULL,
	"patient_count" integer,
	"row_count" bigint,
	"file_name" varchar(200),
	"file_size" bigint,
	"sha256" varchar(64),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "export_logs_study_key" UNIQUE("study_id","id"),
	CONSTRAINT "export_logs_study_job" UNIQUE("study_id","job_id")
);
--> statement-breakpoint
ALTER TABLE "export_logs" ADD CONSTRAINT "export_logs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_logs" ADD CONSTRAINT "export_logs_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "export_logs_study_created" ON "export_logs" USING btree ("study_id","created_at");