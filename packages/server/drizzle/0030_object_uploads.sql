CREATE TABLE "object_uploads" (
	"object_key" varchar(300) PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"issued_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "object_uploads" ADD CONSTRAINT "object_uploads_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "object_uploads" ADD CONSTRAINT "object_uploads_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "object_uploads_issued" ON "object_uploads" USING btree ("issued_at");