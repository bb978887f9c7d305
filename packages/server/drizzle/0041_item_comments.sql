CREATE TABLE "item_comments" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_data_record_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"item_name" varchar(100) NOT NULL,
	"content" text NOT NULL,
	"user_id" integer NOT NULL,
	"user_name" varchar(80) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "item_comments_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "item_comments" ADD CONSTRAINT "item_comments_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "item_comments" ADD CONSTRAINT "item_comments_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "item_comments" ADD CONSTRAINT "item_comments_crf_data_record_id_crf_data_records_id_fk" FOREIGN KEY ("crf_data_record_id") REFERENCES "public"."crf_data_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "item_comments" ADD CONSTRAINT "item_comments_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "item_comments_record" ON "item_comments" USING btree ("crf_data_record_id","item_name");--> statement-breakpoint
CREATE INDEX "item_comments_subject" ON "item_comments" USING btree ("subject_record_id");