CREATE TABLE "recognitions" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"file_key" varchar(64) NOT NULL,
	"temp_id_hash" varchar(64) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"crf_id" integer,
	"subject_record_id" integer,
	"crf_data_record_id" integer,
	"type" integer,
	"index" integer,
	"job_id" varchar(64),
	"state" varchar(16) DEFAULT 'issued' NOT NULL,
	"rows" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "recognitions_study_key" UNIQUE("study_id","id"),
	CONSTRAINT "recognitions_study_temp" UNIQUE("study_id","temp_id_hash")
);
--> statement-breakpoint
ALTER TABLE "recognitions" ADD CONSTRAINT "recognitions_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recognitions" ADD CONSTRAINT "recognitions_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "recognitions_temp" ON "recognitions" USING btree ("temp_id_hash");--> statement-breakpoint
CREATE INDEX "recognitions_record" ON "recognitions" USING btree ("study_id","subject_record_id");