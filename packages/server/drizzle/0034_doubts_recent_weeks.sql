CREATE INDEX "doubts_study_opened" ON "doubts" USING btree ("study_id","created_at");--> statement-breakpoint
CREATE INDEX "doubts_study_closed" ON "doubts" USING btree ("study_id","closed_at");