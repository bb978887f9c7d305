CREATE TABLE "search_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"name" varchar(50) NOT NULL,
	"conditions" jsonb NOT NULL,
	"columns" jsonb NOT NULL,
	"shared" boolean DEFAULT false NOT NULL,
	"owner_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "search_templates_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "search_templates" ADD CONSTRAINT "search_templates_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_templates" ADD CONSTRAINT "search_templates_owner_id_users_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "search_templates_owner" ON "search_templates" USING btree ("study_id","owner_id");--> statement-breakpoint
CREATE INDEX "crf_data_records_search" ON "crf_data_records" USING btree ("study_id","crf_id","subject_record_id") WHERE "crf_data_records"."deleted_at" is null;