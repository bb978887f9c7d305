CREATE TABLE "password_history" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "amendments" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"name" varchar(200) NOT NULL,
	"kind" varchar(10) NOT NULL,
	"crf_id" integer,
	"follow_plan_id" integer,
	"from_version" integer,
	"to_version" integer,
	"report" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "amendments_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "last_active_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "expires_on" varchar(10);--> statement-breakpoint
ALTER TABLE "crf_versions" ADD COLUMN "draft" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "crf_versions" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "mode" varchar(12) DEFAULT 'test' NOT NULL;--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "went_live_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "went_live_by" integer;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subjects" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "export_logs" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "follow_plans" ADD COLUMN "draft" jsonb;--> statement-breakpoint
ALTER TABLE "randomization_configs" ADD COLUMN "test_seed" varchar(64);--> statement-breakpoint
ALTER TABLE "randomization_studies" ADD COLUMN "last_test_number" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "randomizations" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "password_history" ADD CONSTRAINT "password_history_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amendments" ADD CONSTRAINT "amendments_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amendments" ADD CONSTRAINT "amendments_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amendments" ADD CONSTRAINT "amendments_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "password_history_user" ON "password_history" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "amendments_study" ON "amendments" USING btree ("study_id");--> statement-breakpoint
ALTER TABLE "studies" ADD CONSTRAINT "studies_went_live_by_users_user_id_fk" FOREIGN KEY ("went_live_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "crf_versions_one_draft" ON "crf_versions" USING btree ("crf_id") WHERE "crf_versions"."draft";
--> statement-breakpoint
-- Studies that exist before this release are running studies: they are in production, not in 测试.
UPDATE "studies" SET "mode" = 'production', "went_live_at" = "created_at";--> statement-breakpoint
UPDATE "crf_versions" SET "published_at" = "created_at";--> statement-breakpoint
-- The trail stays append-only for the record; a row about test data (never chained) may be removed by the
-- go-live purge, which keeps its own row with the counts.
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.test AND OLD.hash IS NULL THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only';
END;
$$ LANGUAGE plpgsql;
