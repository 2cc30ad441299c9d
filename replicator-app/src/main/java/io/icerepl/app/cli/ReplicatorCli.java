package io.icerepl.app.cli;

public final class ReplicatorCli {
  public static void main(String[] args) {}
}
