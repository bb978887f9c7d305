CREATE TABLE "jobs" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"kind" varchar(64) NOT NULL,
	"owner_id" integer NOT NULL,
	"study_id" integer,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state" varchar(16) NOT NULL,
	"progress" smallint DEFAULT 0 NOT NULL,
	"message" varchar(200),
	"error" varchar(500),
	"result" jsonb,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_by" varchar(64),
	"locked_until" timestamp with time zone,
	"result_file_name" varchar(200),
	"result_content_type" varchar(100),
	"result_size" bigint,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "scheduled_runs" (
	"task" varchar(64) NOT NULL,
	"period" varchar(32) NOT NULL,
	"claimed_by" varchar(64) NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" varchar(500),
	"failed" boolean DEFAULT false NOT NULL,
	CONSTRAINT "scheduled_runs_task_period_pk" PRIMARY KEY("task","period")
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_owner_id_users_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "jobs_owner" ON "jobs" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "jobs_waiting" ON "jobs" USING btree ("created_at") WHERE "jobs"."state" in ('queued', 'running');