/**
 * The Kairos dashboard: {@link dev.kairos.dashboard.KairosDashboard} serves pages and a JSON API
 * over a {@link dev.kairos.Scheduler}; {@link dev.kairos.dashboard.DashboardAuth} plugs in
 * authentication; {@link dev.kairos.dashboard.JobJson} is the JSON form of jobs and runs. All other
 * types are package-private.
 */
package dev.kairos.dashboard;
