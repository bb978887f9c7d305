CREATE TABLE "doubt_messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"doubt_id" integer NOT NULL,
	"study_id" integer NOT NULL,
	"kind" varchar(20) NOT NULL,
	"content" text NOT NULL,
	"item_value" jsonb,
	"user_id" integer NOT NULL,
	"user_name" varchar(80) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "doubts" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_data_record_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"item_name" varchar(100) NOT NULL,
	"group_name" varchar(100),
	"group_index" integer,
	"item_value" jsonb,
	"doubt_description" text NOT NULL,
	"option_type" smallint DEFAULT 0 NOT NULL,
	"doubt_type" smallint DEFAULT 1 NOT NULL,
	"check_key" varchar(300),
	"created_by" integer NOT NULL,
	"user_name" varchar(80) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "doubt_messages" ADD CONSTRAINT "doubt_messages_doubt_id_doubts_id_fk" FOREIGN KEY ("doubt_id") REFERENCES "public"."doubts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "doubts" ADD CONSTRAINT "doubts_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "doubts" ADD CONSTRAINT "doubts_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "doubts" ADD CONSTRAINT "doubts_crf_data_record_id_crf_data_records_id_fk" FOREIGN KEY ("crf_data_record_id") REFERENCES "public"."crf_data_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "doubts" ADD CONSTRAINT "doubts_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "doubt_messages_doubt" ON "doubt_messages" USING btree ("doubt_id");--> statement-breakpoint
CREATE INDEX "doubts_record" ON "doubts" USING btree ("crf_data_record_id","item_name");--> statement-breakpoint
CREATE INDEX "doubts_study" ON "doubts" USING btree ("study_id","option_type");--> statement-breakpoint
CREATE INDEX "doubts_subject" ON "doubts" USING btree ("subject_record_id");