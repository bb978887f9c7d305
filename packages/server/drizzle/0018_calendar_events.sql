CREATE TABLE "calendar_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"owner_id" integer NOT NULL,
	"title" varchar(60) NOT NULL,
	"all_day" boolean DEFAULT false NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"start_date" date,
	"end_date" date,
	"subject_id" integer,
	"note" text,
	"remind_before" integer,
	"remind_at" timestamp with time zone,
	"reminded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_events_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_owner_id_users_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calendar_events_owner_start" ON "calendar_events" USING btree ("study_id","owner_id","start_at");--> statement-breakpoint
CREATE INDEX "calendar_events_remind_due" ON "calendar_events" USING btree ("remind_at");