DROP INDEX "audit_events_study";--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_study" ON "audit_events" USING btree ("study_id","id");--> statement-breakpoint
ALTER TABLE "crf_stage_crfs" ADD CONSTRAINT "crf_stage_crfs_study_key" UNIQUE("study_id","stage_id","crf_id");--> statement-breakpoint
ALTER TABLE "crf_stages" ADD CONSTRAINT "crf_stages_study_key" UNIQUE("study_id","id");--> statement-breakpoint
ALTER TABLE "crf_versions" ADD CONSTRAINT "crf_versions_study_key" UNIQUE("study_id","id");--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD CONSTRAINT "crf_data_records_study_key" UNIQUE("study_id","id");--> statement-breakpoint
ALTER TABLE "print_templates" ADD CONSTRAINT "print_templates_study_key" UNIQUE("study_id","crf_id");--> statement-breakpoint
ALTER TABLE "signatures" ADD CONSTRAINT "signatures_study_key" UNIQUE("study_id","id");--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_study_key" UNIQUE("study_id","file_key");--> statement-breakpoint
ALTER TABLE "subject_records" ADD CONSTRAINT "subject_records_study_key" UNIQUE("study_id","id");--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_study_key" UNIQUE("study_id","id");--> statement-breakpoint
ALTER TABLE "doubt_messages" ADD CONSTRAINT "doubt_messages_study_key" UNIQUE("study_id","id");--> statement-breakpoint
ALTER TABLE "doubts" ADD CONSTRAINT "doubts_study_key" UNIQUE("study_id","id");